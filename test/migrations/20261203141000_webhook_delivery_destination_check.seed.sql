-- Data written by the release of migration 20261203141000_webhook_delivery_destination_check (a
-- CHECK that a delivery has an endpoint or a per-request target, exactly one, no new table or
-- enum value): a PENDING redelivery to the company endpoint and one to the per-request URL.
INSERT INTO webhook_deliveries (id, endpoint_id, target_id, company_id, event_id, event_type, payload, status, attempt_count, last_error, redelivery_of, created_at, updated_at, finished_at) VALUES
  ('71000000-0000-4000-8000-000000000301', '70000000-0000-4000-8000-000000000002', NULL, '50000000-0000-4000-8000-000000000001', '72000000-0000-4000-8000-000000000201', 'ai_run.succeeded',
   '{"type":"ai_run.succeeded","timestamp":"2026-12-03T14:00:00.000Z","data":{"id":"50000000-0000-4000-8000-000000000301","status":"SUCCEEDED","companyId":"50000000-0000-4000-8000-000000000001"}}', 'PENDING', 0, NULL,
   '71000000-0000-4000-8000-000000000201', '2026-12-03 14:10:00+00', '2026-12-03 14:10:00+00', NULL),
  ('71000000-0000-4000-8000-000000000302', NULL, '74000000-0000-4000-8000-000000000001', NULL, '72000000-0000-4000-8000-000000000101', 'ai_run.succeeded',
   '{"type":"ai_run.succeeded","timestamp":"2026-12-03T06:41:00.000Z","data":{"id":"50000000-0000-4000-8000-000000000301","status":"SUCCEEDED"}}', 'PENDING', 0, NULL,
   '71000000-0000-4000-8000-000000000101', '2026-12-03 14:10:01+00', '2026-12-03 14:10:01+00', NULL);
