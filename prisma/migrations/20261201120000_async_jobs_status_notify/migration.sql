-- Issue 7 §1 long polling of GET /async-jobs/{id}: every change of a job's status is announced on
-- the `async_jobs` channel with the job id as payload. Each API process LISTENs on one connection
-- and wakes the requests waiting on that job (src/db/job-changes.ts). NOTIFY is delivered when the
-- updating transaction commits, so a woken request reads the committed row. Prisma's schema cannot
-- express triggers (hence raw SQL, which `migrate diff` does not see).
-- Prisma's driver-adapter migration runner splits scripts on every semicolon, even inside a
-- dollar-quoted body, so the function body is one E'' literal with its semicolons written as \073
-- (as in the init migration). Comments here hold no semicolon for the same reason.
CREATE OR REPLACE FUNCTION async_jobs_notify_status_change() RETURNS trigger
LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''async_jobs'', NEW.job_id::text)\073
  RETURN NULL\073
END';

CREATE TRIGGER async_jobs_status_change_notify
  AFTER UPDATE ON async_jobs
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION async_jobs_notify_status_change();
