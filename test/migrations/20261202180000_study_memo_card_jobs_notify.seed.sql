-- Data written by the release of migration 20261202180000_study_memo_card_jobs_notify (a trigger that
-- announces changes of extraction jobs; no new table or enum value): a processing extraction job that
-- a client long-polls. Inserts fire no notification (the trigger is on UPDATE only), and the trigger
-- changes no row.
INSERT INTO study_memo_card_jobs (id, user_id, source_kind, source_id, source_version, kind, status, attempts, max_attempts, error_code, error_message,
                                  payload, workflow_id, created_at, started_at, completed_at) VALUES
  ('62000000-0000-4000-8000-000000000301', '10000000-0000-4000-8000-000000000002', 'study_question', '61000000-0000-4000-8000-000000000003',
   '2026-12-02 18:00:00.500+00', 'card_extract', 'processing', 1, 2, NULL, NULL,
   NULL, 'study-card-extract:study_question:61000000-0000-4000-8000-000000000003:2026-12-02T18:00:00.500Z',
   '2026-12-02 18:00:01+00', '2026-12-02 18:00:02+00', NULL);
