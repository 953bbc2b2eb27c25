-- Data written by the release of migration 20261203064000_webhook_request_targets: a user's signing
-- secret in rotation (stored sealed; the seed holds opaque text of that form), the per-request
-- webhook URL of an AI run, and a delivery to it (no endpoint) with its attempt.
INSERT INTO webhook_signing_secrets (user_id, secret, previous_secret, previous_secret_expires_at, created_at, updated_at) VALUES
  ('10000000-0000-4000-8000-000000000001', 'v1.dev.c2VlZC1pdg.c2VlZC10YWc.c2VlZC1kYXRh', 'v1.dev.c2VlZC1pdjI.c2VlZC10YWcy.c2VlZC1kYXRhMg',
   '2026-12-04 06:40:00+00', '2026-12-03 06:40:00+00', '2026-12-03 06:40:00+00');

INSERT INTO webhook_request_targets (id, source, resource_id, user_id, url, created_at) VALUES
  ('74000000-0000-4000-8000-000000000001', 'ai_run', '50000000-0000-4000-8000-000000000301', '10000000-0000-4000-8000-000000000001',
   'https://hooks.example.com/runs/301', '2026-12-03 06:40:01+00');

INSERT INTO webhook_deliveries (id, endpoint_id, target_id, event_id, event_type, payload, status, attempt_count, last_error, redelivery_of, created_at, updated_at, finished_at) VALUES
  ('71000000-0000-4000-8000-000000000101', NULL, '74000000-0000-4000-8000-000000000001', '72000000-0000-4000-8000-000000000101', 'ai_run.succeeded',
   '{"type":"ai_run.succeeded","timestamp":"2026-12-03T06:41:00.000Z","data":{"id":"50000000-0000-4000-8000-000000000301","status":"SUCCEEDED"}}', 'SUCCEEDED', 1, NULL, NULL,
   '2026-12-03 06:41:00+00', '2026-12-03 06:41:01+00', '2026-12-03 06:41:01+00');

INSERT INTO webhook_attempts (id, delivery_id, number, status_code, duration_ms, error, created_at) VALUES
  ('73000000-0000-4000-8000-000000000101', '71000000-0000-4000-8000-000000000101', 1, 200, 41, NULL, '2026-12-03 06:41:01+00');
