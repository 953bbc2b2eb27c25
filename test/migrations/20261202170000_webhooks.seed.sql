-- Data written by the release of migration 20261202170000_webhooks: a user endpoint in rotation and
-- a company endpoint, deliveries in every status (one a redelivery) and their attempts. Inserts
-- fire no trigger (the triggers are on UPDATE of status).
INSERT INTO webhook_endpoints (id, user_id, company_id, url, description, secret, previous_secret, previous_secret_expires_at, created_at, updated_at) VALUES
  ('70000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', NULL, 'https://hooks.example.com/jobs', 'job completions',
   'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD', '2026-12-03 17:00:00+00', '2026-12-02 17:00:00+00', '2026-12-02 17:00:00+00'),
  ('70000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000001', '50000000-0000-4000-8000-000000000001', 'https://hooks.example.com/runs', NULL,
   'whsec_plJ3nmyCDGBKInavdOK15jsl2PlaHpkS', NULL, NULL, '2026-12-02 17:00:01+00', '2026-12-02 17:00:01+00');

INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, attempt_count, last_error, redelivery_of, created_at, updated_at, finished_at) VALUES
  ('71000000-0000-4000-8000-000000000001', '70000000-0000-4000-8000-000000000001', '72000000-0000-4000-8000-000000000001', 'async_job.completed',
   '{"type":"async_job.completed","timestamp":"2026-12-02T17:01:00.000Z","data":{"id":"20000000-0000-4000-8000-000000000001","status":"COMPLETED"}}', 'SUCCEEDED', 1, NULL, NULL,
   '2026-12-02 17:01:00+00', '2026-12-02 17:01:01+00', '2026-12-02 17:01:01+00'),
  ('71000000-0000-4000-8000-000000000002', '70000000-0000-4000-8000-000000000001', '72000000-0000-4000-8000-000000000001', 'async_job.completed',
   '{"type":"async_job.completed","timestamp":"2026-12-02T17:01:00.000Z","data":{"id":"20000000-0000-4000-8000-000000000001","status":"COMPLETED"}}', 'PENDING', 0, NULL, '71000000-0000-4000-8000-000000000001',
   '2026-12-02 17:02:00+00', '2026-12-02 17:02:00+00', NULL),
  ('71000000-0000-4000-8000-000000000003', '70000000-0000-4000-8000-000000000002', '72000000-0000-4000-8000-000000000003', 'ai_run.failed',
   '{"type":"ai_run.failed","timestamp":"2026-12-02T17:03:00.000Z","data":{"id":"50000000-0000-4000-8000-000000000301","status":"FAILED"}}', 'DELIVERING', 2, 'HTTP 503', NULL,
   '2026-12-02 17:03:00+00', '2026-12-02 17:03:30+00', NULL),
  ('71000000-0000-4000-8000-000000000004', '70000000-0000-4000-8000-000000000002', '72000000-0000-4000-8000-000000000004', 'ai_run.succeeded',
   '{"type":"ai_run.succeeded","timestamp":"2026-12-02T17:04:00.000Z","data":{"id":"50000000-0000-4000-8000-000000000301","status":"SUCCEEDED"}}', 'FAILED', 9, 'timed out after 10000 ms', NULL,
   '2026-12-02 17:04:00+00', '2026-12-03 17:04:00+00', '2026-12-03 17:04:00+00');

INSERT INTO webhook_attempts (id, delivery_id, number, status_code, duration_ms, error, created_at) VALUES
  ('73000000-0000-4000-8000-000000000001', '71000000-0000-4000-8000-000000000001', 1, 204, 35, NULL, '2026-12-02 17:01:01+00'),
  ('73000000-0000-4000-8000-000000000002', '71000000-0000-4000-8000-000000000003', 1, 503, 20, 'HTTP 503', '2026-12-02 17:03:01+00'),
  ('73000000-0000-4000-8000-000000000003', '71000000-0000-4000-8000-000000000003', 2, NULL, 10000, 'timed out after 10000 ms', '2026-12-02 17:03:30+00');
