-- Data written by the release of migration 20261202100000_result_codes_and_target_versions: a study
-- question whose explanation was written three times (the AI's, then two by hand), its explanation
-- job that recorded revision 1 at enqueue and completed SUPERSEDED by the later hand-written one, a
-- pending one with its revision, and a portal REFRESH job that SUCCEEDED with its result ignored
-- as older than the student's data.
INSERT INTO study_questions (id, user_id, topic_id, question, user_answer, ai_explanation, ai_explanation_generated_at, explanation_origin,
                             explanation_revision, needs_review, created_at, updated_at) VALUES
  ('61000000-0000-4000-8000-000000000204', '10000000-0000-4000-8000-000000000001', '60000000-0000-4000-8000-000000000001',
   'What does a covering index hold?', NULL, 'Every column a query reads, so the table itself is not visited.',
   '2026-12-02 10:00:02.500+00', 'manual', 3, false, '2026-12-02 09:59:00+00', '2026-12-02 10:00:02.500+00');

INSERT INTO async_jobs (job_id, job_type, target_id, user_id, status, error_message, retry_count, target_version, result_code, created_at, updated_at, started_at, finished_at) VALUES
  ('67000000-0000-4000-8000-000000000204', 'STUDY_EXPLANATION', '61000000-0000-4000-8000-000000000204', '10000000-0000-4000-8000-000000000001',
   'COMPLETED', NULL, 0, 1, 'SUPERSEDED', '2026-12-02 10:00:00+00', '2026-12-02 10:00:03+00', '2026-12-02 10:00:00.100+00', '2026-12-02 10:00:03+00'),
  ('67000000-0000-4000-8000-000000000205', 'STUDY_EXPLANATION', '61000000-0000-4000-8000-000000000204', '10000000-0000-4000-8000-000000000001',
   'PENDING', NULL, 0, 3, NULL, '2026-12-02 10:00:04+00', '2026-12-02 10:00:04+00', NULL, NULL);

INSERT INTO portal_link_jobs (id, user_id, portal_type, student_id, kind, status, error_code, error_message, workflow_id, result_key, result_sha256, summary,
                              result_code, created_at, started_at, post_processing_at, finished_at, updated_at) VALUES
  ('60000000-0000-4000-8000-000000000106', '10000000-0000-4000-8000-000000000003', 'suwon', '20210001', 'REFRESH', 'SUCCEEDED', NULL, NULL,
   'portal-link:10000000-0000-4000-8000-000000000003:b3f1c9e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6',
   'portal-results/60000000-0000-4000-8000-000000000106/1.json', NULL,
   '{"studentId": "20210001", "name": "Park Suwon", "admissionYear": 2021, "department": "Computer Science", "major": "Computer Science", "doubleMajor": null, "enrollmentStatus": "ENROLLED", "gradeLevel": 3, "creditsEarned": 80, "gpa": 3.6, "semesters": 5, "courses": 27, "designatedCourses": 0, "dataAsOf": "2026-12-02T09:00:03.000Z"}',
   'STALE_RESULT_IGNORED', '2026-12-02 10:10:00+00', '2026-12-02 10:10:01+00', '2026-12-02 10:10:04+00', '2026-12-02 10:10:05+00', '2026-12-02 10:10:05+00');
