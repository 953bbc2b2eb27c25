-- Long polling of GET /api/v1/ai-runs/{id} and GET /portal/link/jobs/{id}: every change of a row's
-- entity tag is announced on the channel named after its table, with the row id as payload (as
-- async_jobs does). Each API process LISTENs on one connection and wakes the requests waiting on
-- that row (src/db/job-changes.ts). NOTIFY is delivered when the updating transaction commits, so a
-- woken request reads the committed row. An AI run's ETag is its version, a portal link job's its
-- status and updated_at: the triggers fire when those change. Prisma's schema cannot express
-- triggers (hence raw SQL, which `migrate diff` does not see).
-- Prisma's driver-adapter migration runner splits scripts on every semicolon, even inside a
-- dollar-quoted body, so each function body is one E'' literal with its semicolons written as \073
-- (as in the init migration). Comments here hold no semicolon for the same reason.
CREATE OR REPLACE FUNCTION ai_runs_notify_version_change() RETURNS trigger
LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''ai_runs'', NEW.id::text)\073
  RETURN NULL\073
END';

CREATE TRIGGER ai_runs_version_change_notify
  AFTER UPDATE ON ai_runs
  FOR EACH ROW
  WHEN (OLD.version IS DISTINCT FROM NEW.version)
  EXECUTE FUNCTION ai_runs_notify_version_change();

CREATE OR REPLACE FUNCTION portal_link_jobs_notify_change() RETURNS trigger
LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''portal_link_jobs'', NEW.id::text)\073
  RETURN NULL\073
END';

CREATE TRIGGER portal_link_jobs_change_notify
  AFTER UPDATE ON portal_link_jobs
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)
  EXECUTE FUNCTION portal_link_jobs_notify_change();
