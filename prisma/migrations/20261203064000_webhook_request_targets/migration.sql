-- Per-request completion webhooks: a create request may name a URL for its resource (kept in
-- webhook_request_targets, keyed by the trigger's event prefix and the resource id), signed with the
-- requesting user's signing secret (webhook_signing_secrets). A delivery goes to an endpoint or to a
-- request target, exactly one of the two. The terminal-status trigger function also writes a
-- delivery for the resource's request target. Its body is one E'' literal with its semicolons
-- written as \073 (the migration runner splits scripts on every semicolon). Comments here hold no
-- semicolon for the same reason.
-- CreateTable
CREATE TABLE "webhook_signing_secrets" (
    "user_id" UUID NOT NULL,
    "secret" TEXT NOT NULL,
    "previous_secret" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_signing_secrets_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "webhook_request_targets" (
    "id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_request_targets_pkey" PRIMARY KEY ("id")
);

-- AlterTable
ALTER TABLE "webhook_deliveries" ALTER COLUMN "endpoint_id" DROP NOT NULL,
ADD COLUMN     "target_id" UUID;

-- CreateIndex
CREATE UNIQUE INDEX "webhook_request_targets_source_resource_id_key" ON "webhook_request_targets"("source", "resource_id");

-- CreateIndex
CREATE INDEX "webhook_request_targets_user_id_created_at_idx" ON "webhook_request_targets"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_target_id_created_at_idx" ON "webhook_deliveries"("target_id", "created_at");

-- AddForeignKey
ALTER TABLE "webhook_signing_secrets" ADD CONSTRAINT "webhook_signing_secrets_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_request_targets" ADD CONSTRAINT "webhook_request_targets_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "webhook_request_targets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE OR REPLACE FUNCTION webhook_enqueue_terminal() RETURNS trigger
LANGUAGE plpgsql AS E'
DECLARE
  r jsonb := to_jsonb(NEW)\073
  owner uuid := (r ->> TG_ARGV[2])::uuid\073
  etype text := TG_ARGV[0] || ''.'' || lower(r ->> ''status'')\073
  data jsonb := jsonb_build_object(''id'', r ->> TG_ARGV[1], ''status'', r ->> ''status'')\073
  ev uuid := gen_random_uuid()\073
  msg jsonb\073
  written boolean\073
  i int\073
BEGIN
  FOR i IN 4 .. TG_NARGS - 1 LOOP
    data := data || jsonb_build_object(split_part(TG_ARGV[i], '':'', 1), r -> split_part(TG_ARGV[i], '':'', 2))\073
  END LOOP\073
  msg := jsonb_build_object(''type'', etype, ''timestamp'', to_char(now() AT TIME ZONE ''UTC'', ''YYYY-MM-DD"T"HH24:MI:SS.MS"Z"''), ''data'', data)\073
  INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, created_at, updated_at)
  SELECT gen_random_uuid(), e.id, ev, etype, msg, ''PENDING'', now(), now()
  FROM webhook_endpoints e
  WHERE CASE WHEN TG_ARGV[3] = ''company'' THEN e.company_id = owner ELSE e.user_id = owner AND e.company_id IS NULL END\073
  written := FOUND\073
  INSERT INTO webhook_deliveries (id, target_id, event_id, event_type, payload, status, created_at, updated_at)
  SELECT gen_random_uuid(), t.id, ev, etype, msg, ''PENDING'', now(), now()
  FROM webhook_request_targets t
  WHERE t.source = TG_ARGV[0] AND t.resource_id = r ->> TG_ARGV[1]\073
  IF written OR FOUND THEN
    PERFORM pg_notify(''webhook_deliveries'', ev::text)\073
  END IF\073
  RETURN NULL\073
END';
