-- Data written by the release of migration 20261203150000_webhook_request_targets_per_request (no
-- new table or enum value: (source, resource_id) of webhook_request_targets is no longer unique):
-- two submissions of the same scrap content, each naming its own URL for the still PENDING refine
-- job of the async_jobs_status_notify seed.
INSERT INTO webhook_request_targets (id, source, resource_id, user_id, url, created_at) VALUES
  ('74000000-0000-4000-8000-000000000101', 'async_job', '30000000-0000-4000-8000-000000000101', '10000000-0000-4000-8000-000000000001',
   'https://hooks.example.com/scraps/first', '2026-12-03 14:00:01+00'),
  ('74000000-0000-4000-8000-000000000102', 'async_job', '30000000-0000-4000-8000-000000000101', '10000000-0000-4000-8000-000000000001',
   'https://hooks.example.com/scraps/repeat', '2026-12-03 14:00:02+00');
