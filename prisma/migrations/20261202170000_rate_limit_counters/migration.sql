-- Per-client rate limits shared by several API processes (RATE_LIMIT_STORE=postgres): one fixed-window
-- counter row per limit key, bumped by one upsert per request (src/db/rate-limit-store.ts). UNLOGGED
-- (which migrate diff does not see): a counter is not worth a WAL record per request, and a crash
-- only resets the windows.
-- CreateTable
CREATE UNLOGGED TABLE "rate_limit_counters" (
    "key" TEXT NOT NULL,
    "window_start" BIGINT NOT NULL,
    "hits" INTEGER NOT NULL,

    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("key")
);
