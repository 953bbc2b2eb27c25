-- Long polling of GET /study/memo-card-jobs/{id}: every change of an extraction job's entity tag
-- (status, attempts, started_at, completed_at: src/domain/study/etag.ts) is announced on the channel
-- named after its table, with the row id as payload, as for async_jobs, ai_runs and portal_link_jobs
-- (src/db/job-changes.ts). Raw SQL for the same reasons as migration
-- 20261202160000_projection_change_notify (the body's semicolons written as \073).
CREATE OR REPLACE FUNCTION study_memo_card_jobs_notify_change() RETURNS trigger
LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''study_memo_card_jobs'', NEW.id::text)\073
  RETURN NULL\073
END';

CREATE TRIGGER study_memo_card_jobs_change_notify
  AFTER UPDATE ON study_memo_card_jobs
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.attempts IS DISTINCT FROM NEW.attempts
    OR OLD.started_at IS DISTINCT FROM NEW.started_at OR OLD.completed_at IS DISTINCT FROM NEW.completed_at)
  EXECUTE FUNCTION study_memo_card_jobs_notify_change();
