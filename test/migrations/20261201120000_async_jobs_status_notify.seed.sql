-- Data written by the release of migration 20261201120000_async_jobs_status_notify (a trigger that
-- announces status changes; no new table or enum value): jobs that clients long-poll, one PENDING
-- and one COMPLETED of a user of the init release. Inserts fire no notification (the trigger is on
-- UPDATE only), and the trigger changes no row.
INSERT INTO async_jobs (job_id, job_type, target_id, user_id, status, error_message, retry_count, created_at, updated_at, started_at, finished_at) VALUES
  ('30000000-0000-4000-8000-000000000101', 'SCRAP_REFINE', '20000000-0000-4000-8000-000000000101', '10000000-0000-4000-8000-000000000001',
   'PENDING', NULL, 0, '2026-12-01 12:00:00.125+00', '2026-12-01 12:00:00.125+00', NULL, NULL),
  ('30000000-0000-4000-8000-000000000102', 'CARD_ANALYSIS', '20000000-0000-4000-8000-000000000101', '10000000-0000-4000-8000-000000000001',
   'COMPLETED', NULL, 0, '2026-12-01 12:00:00.250+00', '2026-12-01 12:00:03.875+00', '2026-12-01 12:00:01+00', '2026-12-01 12:00:03.875+00');
