-- Data written by the release of migration 20261202160000_projection_change_notify (triggers that
-- announce changes of AI runs and portal link jobs; no new table or enum value): a QUEUED run that
-- clients long-poll and a FAILED link job. Inserts fire no notification (the triggers are on
-- UPDATE only), and the triggers change no row.
INSERT INTO ai_runs (id, company_id, actor_user_id, status, analysis_outcome, input_masked, input_hash, locale, idempotency_key_hash, workflow_id, attempt_count, retry_count, max_attempts, next_attempt_at, deadline_at, version, error_code, error_message, request_id, trace_id, created_at, updated_at, started_at, finished_at) VALUES
  ('50000000-0000-4000-8000-000000000301', '50000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', 'QUEUED', NULL,
   'Please send me my payslips of the last three months', 'aa00000000000000000000000000000000000000000000000000000000000301', 'en',
   'a3f1c9e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d20301', 'ai-run:50000000-0000-4000-8000-000000000001:a3f1c9e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d20301',
   0, 0, 3, NULL, NULL, 1, NULL, NULL, 'req-0301', NULL, '2026-12-02 16:00:00+00', '2026-12-02 16:00:00+00', NULL, NULL);

INSERT INTO portal_link_jobs (id, user_id, portal_type, student_id, kind, status, error_code, error_message, workflow_id, result_key, result_sha256, summary,
                              result_code, created_at, started_at, post_processing_at, finished_at, updated_at) VALUES
  ('60000000-0000-4000-8000-000000000301', '10000000-0000-4000-8000-000000000002', 'suwon', '20199876', 'REFRESH', 'FAILED', 'PORTAL_CREDENTIALS_INVALID', 'the portal rejected the student id or password',
   'portal-link:10000000-0000-4000-8000-000000000002:b3f1c9e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d20301',
   NULL, NULL, NULL, NULL, '2026-12-02 16:00:01+00', '2026-12-02 16:00:02+00', NULL, '2026-12-02 16:00:03+00', '2026-12-02 16:00:03+00');
