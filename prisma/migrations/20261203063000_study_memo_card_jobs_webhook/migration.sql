-- Completion webhooks of study extraction jobs (ST-1): when a job enters a terminal status
-- (completed, failed, skipped) the trigger function of migration 20261202170000_webhooks writes one
-- delivery per endpoint of the job's user, with the event type study_memo_card_job.<status>.
-- Arguments as documented there: event prefix, id column, owner column, scope, name:column fields.
CREATE TRIGGER study_memo_card_jobs_webhook_terminal
  AFTER UPDATE OF status ON study_memo_card_jobs
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status::text IN ('completed', 'failed', 'skipped'))
  EXECUTE FUNCTION webhook_enqueue_terminal('study_memo_card_job', 'id', 'user_id', 'user', 'kind:kind', 'sourceKind:source_kind', 'sourceId:source_id', 'sourceVersion:source_version', 'attempts:attempts', 'errorCode:error_code', 'completedAt:completed_at');
