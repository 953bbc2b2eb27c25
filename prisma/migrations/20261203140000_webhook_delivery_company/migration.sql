-- The company of a delivery's event: webhook_deliveries.company_id is the company that owns the
-- event's resource, written by the terminal-status trigger for company-scoped sources (scope
-- argument `company`, the owner column being the company) and null for a user's own resources.
-- A delivery to a per-request URL is sent only while the URL's user is a member of that company
-- (checked by the delivery activity before each POST). Deliveries written before this release get
-- the company of their company endpoint, or the `companyId` field of their event's data.
-- The function body is one E'' literal with its semicolons written as \073 (the migration runner
-- splits scripts on every semicolon). Comments here hold no semicolon for the same reason.
-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "company_id" UUID;

UPDATE webhook_deliveries d SET company_id = e.company_id
  FROM webhook_endpoints e
 WHERE d.endpoint_id = e.id AND e.company_id IS NOT NULL;

UPDATE webhook_deliveries SET company_id = (payload #>> '{data,companyId}')::uuid
 WHERE target_id IS NOT NULL
   AND payload #>> '{data,companyId}' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

CREATE OR REPLACE FUNCTION webhook_enqueue_terminal() RETURNS trigger
LANGUAGE plpgsql AS E'
DECLARE
  r jsonb := to_jsonb(NEW)\073
  owner uuid := (r ->> TG_ARGV[2])::uuid\073
  resource_company uuid := CASE WHEN TG_ARGV[3] = ''company'' THEN owner END\073
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
  INSERT INTO webhook_deliveries (id, endpoint_id, company_id, event_id, event_type, payload, status, created_at, updated_at)
  SELECT gen_random_uuid(), e.id, resource_company, ev, etype, msg, ''PENDING'', now(), now()
  FROM webhook_endpoints e
  WHERE CASE WHEN TG_ARGV[3] = ''company'' THEN e.company_id = owner ELSE e.user_id = owner AND e.company_id IS NULL END\073
  written := FOUND\073
  INSERT INTO webhook_deliveries (id, target_id, company_id, event_id, event_type, payload, status, created_at, updated_at)
  SELECT gen_random_uuid(), t.id, resource_company, ev, etype, msg, ''PENDING'', now(), now()
  FROM webhook_request_targets t
  WHERE t.source = TG_ARGV[0] AND t.resource_id = r ->> TG_ARGV[1]\073
  IF written OR FOUND THEN
    PERFORM pg_notify(''webhook_deliveries'', ev::text)\073
  END IF\073
  RETURN NULL\073
END';
