-- Data written by the release of migration 20261203063000_study_memo_card_jobs_webhook (a trigger
-- that writes a webhook delivery when an extraction job reaches a terminal status; no new table or
-- enum value): a completed extraction job of an earlier version of a question. Inserts fire no
-- delivery (the trigger is on UPDATE of status).
INSERT INTO study_memo_card_jobs (id, user_id, source_kind, source_id, source_version, kind, status, attempts, max_attempts, error_code, error_message,
                                  payload, workflow_id, created_at, started_at, completed_at) VALUES
  ('62000000-0000-4000-8000-000000000401', '10000000-0000-4000-8000-000000000002', 'study_question', '61000000-0000-4000-8000-000000000003',
   '2026-12-03 06:30:00.250+00', 'card_extract', 'completed', 1, 2, NULL, NULL,
   NULL, 'study-card-extract:study_question:61000000-0000-4000-8000-000000000003:2026-12-03T06:30:00.250Z',
   '2026-12-03 06:30:01+00', '2026-12-03 06:30:02+00', '2026-12-03 06:30:04+00');
