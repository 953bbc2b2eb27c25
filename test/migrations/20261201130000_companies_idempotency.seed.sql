-- Data written by the release of migration 20261201130000_companies_idempotency: a company with a
-- member of every role (two users of the init release and a new one), and idempotency records, one answered (201 with
-- its resource) and one still open (no answer yet, NULL status and resource).
INSERT INTO users (id, name, time_zone, created_at) VALUES
  ('10000000-0000-4000-8000-000000000003', 'viewer-kim', 'Asia/Seoul', '2026-12-01 12:59:00+00');
INSERT INTO companies (id, name, created_at) VALUES
  ('50000000-0000-4000-8000-000000000001', 'Acme HR', '2026-12-01 13:00:00.125+00');
INSERT INTO company_members (company_id, user_id, role, created_at) VALUES
  ('50000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', 'OWNER', '2026-12-01 13:00:01+00'),
  ('50000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000002', 'HR_MANAGER', '2026-12-01 13:00:02+00'),
  ('50000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000003', 'VIEWER', '2026-12-01 13:00:03+00');
INSERT INTO idempotency_records (id, scope_id, operation, key_hash, request_hash, field_hashes, status_code, resource_type, resource_id, created_at, expires_at) VALUES
  ('50000000-0000-4000-8000-000000000101', '50000000-0000-4000-8000-000000000001', 'POST /api/v1/ai-runs',
   'a3f1c9e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6', 'b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3',
   '{"input": "c2e4a6b8d0f2c4e6a8b0d2f4c6e8a0b2d4f6c8e0a2b4d6f8c0e2a4b6d8f0a2c4"}', 202, 'ai_run', '50000000-0000-4000-8000-000000000201',
   '2026-12-01 13:00:04+00', '2026-12-02 13:00:04+00'),
  ('50000000-0000-4000-8000-000000000102', '10000000-0000-4000-8000-000000000001', 'POST /portal/link',
   'd4f6b8a0c2e4d6f8b0a2c4e6d8f0b2a4c6e8d0f2b4a6c8e0d2f4b6a8c0e2d4f6', 'e5a7c9b1d3f5e7a9c1b3d5f7e9a1c3b5d7f9e1a3c5b7d9f1e3a5c7b9d1f3e5a7',
   '{}', NULL, NULL, NULL, '2026-12-01 13:00:05+00', '2026-12-02 13:00:05+00');
