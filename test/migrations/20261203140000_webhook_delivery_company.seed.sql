-- Data written by the release of migration 20261203140000_webhook_delivery_company (the company of
-- a delivery's event, no new table or enum value): a delivery of a company's AI run to its company
-- endpoint, and a per-request delivery of that run not sent because its requester had left the
-- company (FAILED with the reason, one attempt with no HTTP answer).
INSERT INTO webhook_deliveries (id, endpoint_id, target_id, company_id, event_id, event_type, payload, status, attempt_count, last_error, redelivery_of, created_at, updated_at, finished_at) VALUES
  ('71000000-0000-4000-8000-000000000201', '70000000-0000-4000-8000-000000000002', NULL, '50000000-0000-4000-8000-000000000001', '72000000-0000-4000-8000-000000000201', 'ai_run.succeeded',
   '{"type":"ai_run.succeeded","timestamp":"2026-12-03T14:00:00.000Z","data":{"id":"50000000-0000-4000-8000-000000000301","status":"SUCCEEDED","companyId":"50000000-0000-4000-8000-000000000001"}}', 'SUCCEEDED', 1, NULL, NULL,
   '2026-12-03 14:00:00+00', '2026-12-03 14:00:01+00', '2026-12-03 14:00:01+00'),
  ('71000000-0000-4000-8000-000000000202', NULL, '74000000-0000-4000-8000-000000000001', '50000000-0000-4000-8000-000000000001', '72000000-0000-4000-8000-000000000201', 'ai_run.succeeded',
   '{"type":"ai_run.succeeded","timestamp":"2026-12-03T14:00:00.000Z","data":{"id":"50000000-0000-4000-8000-000000000301","status":"SUCCEEDED","companyId":"50000000-0000-4000-8000-000000000001"}}', 'FAILED', 1,
   'not sent: the user who named this webhook is no longer a member of company 50000000-0000-4000-8000-000000000001', NULL,
   '2026-12-03 14:00:00+00', '2026-12-03 14:00:01+00', '2026-12-03 14:00:01+00');

INSERT INTO webhook_attempts (id, delivery_id, number, status_code, duration_ms, error, created_at) VALUES
  ('73000000-0000-4000-8000-000000000201', '71000000-0000-4000-8000-000000000201', 1, 200, 38, NULL, '2026-12-03 14:00:01+00'),
  ('73000000-0000-4000-8000-000000000202', '71000000-0000-4000-8000-000000000202', 1, NULL, 0,
   'not sent: the user who named this webhook is no longer a member of company 50000000-0000-4000-8000-000000000001', '2026-12-03 14:00:01+00');
