-- Data written by the release of migration 20261201171000_study_explanation_job: explanation jobs of
-- the study questions of the previous release, one completed (the question's explanation) and one failed.
INSERT INTO async_jobs (job_id, job_type, target_id, user_id, status, error_message, retry_count, created_at, updated_at, started_at, finished_at) VALUES
  ('67000000-0000-4000-8000-000000000001', 'STUDY_EXPLANATION', '61000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001',
   'COMPLETED', NULL, 0, '2026-12-01 16:09:58+00', '2026-12-01 16:10:00.125+00', '2026-12-01 16:09:59+00', '2026-12-01 16:10:00.125+00'),
  ('67000000-0000-4000-8000-000000000002', 'STUDY_EXPLANATION', '61000000-0000-4000-8000-000000000003', '10000000-0000-4000-8000-000000000002',
   'FAILED', 'AI_BAD_REQUEST: the question is blank', 1, '2026-12-01 16:07:01+00', '2026-12-01 16:07:05+00', '2026-12-01 16:07:02+00', '2026-12-01 16:07:05+00');
