/** The AI-runs family's settings (AR-2, AR-6 … AR-8): the runtime, attempts, deadlines, input keys. */
import { z } from 'zod';
import { devKeyRingSpec, parseKeyRing } from '../crypto/token-box';
import type { CoreConfig } from './core';
import { configSection, invalid, type SectionOf } from './env';

/** The AI-runs section. */
export const AI_RUNS_CONFIG = configSection(
  {
    AI_RUNTIME: z.enum(['local', 'http']).default('local').describe('AI runtime of the AI runs: local (deterministic, offline) | http (AI_RUNTIME_URL).'),
    AI_RUNTIME_URL: z.string().url().optional().describe('Base URL of the external AI runtime (required when AI_RUNTIME=http).'),
    AI_RUNTIME_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000).describe('Deadline of one runtime call (one attempt), in ms; past it the attempt ends RUNTIME_TIMEOUT.'),
    AI_RUNTIME_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().min(500).default(10_000).describe('A call whose worker stops heartbeating this long (ms) ends LEASE_EXPIRED and the run goes on (AR-7).'),
    AI_RUN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3).describe('Charged attempts per run segment (outages are not charged).'),
    AI_RUN_DEADLINE_SECONDS: z.coerce.number().int().min(1).default(600).describe('Overall deadline of a run (and of each manual retry), in seconds; past it the run ends FAILED DEADLINE_EXCEEDED.'),
    AI_RUN_RETRY_INITIAL_MS: z.coerce.number().int().min(0).default(1_000).describe('First automatic-retry delay in ms (a runtime\'s Retry-After wins).'),
    AI_RUN_RETRY_MAX_MS: z.coerce.number().int().min(0).default(30_000).describe('Largest automatic-retry delay in ms.'),
    AI_RUN_RETRY_WINDOW_HOURS: z.coerce.number().min(0).default(24).describe('Hours a FAILED run can still be retried.'),
    AI_RUN_MAX_TEXT_CHARS: z.coerce.number().int().min(1).default(8_000).describe('Longest AI-run request text, in characters.'),
    AI_RUNS_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(8).describe('Most runtime calls one ai-runs worker makes at once.'),
    AI_INPUT_HASH_KEY: z.string().min(32, 'at least 32 characters').optional().describe('AR-6 server key of the keyed input hash (HMAC-SHA256), at least 32 characters; required in production.'),
    AI_RUNTIME_FAIL_FIRST_MARKER: z.string().min(1).optional().describe('Demo/test only: a request with this text fails its first attempt retryably.'),
    AI_RUNTIME_REJECT_FIRST_MARKER: z.string().min(1).optional().describe('Demo/test only: a request with this text fails its first attempt terminally.'),
    AI_RUN_INPUT_KEYS: z.string().optional().describe('Key ring `kid:base64-32-byte-key,…` sealing a run\'s raw input until its workflow started; required in production.'),
    AI_RUN_INPUT_ACTIVE_KEY_ID: z.string().optional().describe('Key id that seals new inputs (required when AI_RUN_INPUT_KEYS lists more than one key).'),
  },
  (e, nodeEnv) => ({
    /**
     * AR-2/AR-7/AR-8 AI runs: the runtime (`local` deterministic, or `http` at `url`), the per-call
     * deadline and heartbeat timeout (a killed worker's attempt ends LEASE_EXPIRED), the attempt
     * budget, the overall run deadline, the automatic-retry backoff, how long a FAILED run can be
     * retried (its workflow waits that long), the keyed input hash (AR-6) and the key ring sealing a
     * run's raw input while its workflow start is pending (the outbox, see src/services/ai-runs/runs.ts).
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
      faults: nodeEnv === 'production' ? {} : { failFirstMarker: e.AI_RUNTIME_FAIL_FIRST_MARKER, rejectFirstMarker: e.AI_RUNTIME_REJECT_FIRST_MARKER },
      inputHashKey: e.AI_INPUT_HASH_KEY ?? (nodeEnv === 'production' ? undefined : 'dev-only-ai-input-hash-key-change-me-000000'),
      inputKeys: e.AI_RUN_INPUT_KEYS ?? (nodeEnv === 'production' ? undefined : devKeyRingSpec()),
      inputActiveKeyId: e.AI_RUN_INPUT_KEYS ? e.AI_RUN_INPUT_ACTIVE_KEY_ID : undefined,
    },
  }),
  ({ aiRuns }) => {
    if (aiRuns.runtime === 'http' && !aiRuns.runtimeUrl) invalid('AI_RUNTIME_URL', 'required when AI_RUNTIME=http');
    if (!aiRuns.inputHashKey || !aiRuns.inputKeys) invalid('AI_INPUT_HASH_KEY / AI_RUN_INPUT_KEYS', 'required when NODE_ENV=production');
    try {
      parseKeyRing(aiRuns.inputKeys, aiRuns.inputActiveKeyId);
    } catch (err) {
      invalid('AI_RUN_INPUT_KEYS / AI_RUN_INPUT_ACTIVE_KEY_ID', (err as Error).message);
    }
  },
);

/** The config the AI-runs family's code reads: the core's and its own section. */
export type AiRunsConfig = CoreConfig & SectionOf<typeof AI_RUNS_CONFIG>;
