-- Data written by the release of migration 20261201161000_portal_academic: reference data of the
-- suwon portal (departments, a professor with and one without a department, courses of every area),
-- one student with a double major and an open course-evaluation semester (every evaluation status),
-- the academic record, two semesters with a retaken course and a credit correction, designated
-- courses with a duplicate, a language certificate, and graduation rules of both kinds with areas,
-- required courses and accepted language certificates.
INSERT INTO departments (id, portal_type, name, created_at) VALUES
  ('60000000-0000-4000-8000-000000000001', 'suwon', 'Computer Science', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000002', 'suwon', 'Business Administration', '2026-12-01 16:00:00+00');
INSERT INTO professors (id, portal_type, name, department_id, created_at, updated_at) VALUES
  ('60000000-0000-4000-8000-000000000011', 'suwon', 'Kim Minjun', '60000000-0000-4000-8000-000000000001', '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000012', 'suwon', 'Lee Seoyeon', NULL, '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00');
INSERT INTO courses (id, portal_type, code, name, credits, area, department_id, created_at, updated_at) VALUES
  ('60000000-0000-4000-8000-000000000021', 'suwon', 'GE101', 'Academic Writing', 2, 'GE_REQUIRED', NULL, '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000022', 'suwon', 'GE201', 'Understanding Society', 3, 'GE_CORE', NULL, '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000023', 'suwon', 'GE301', 'Film and Culture', 3, 'GE_ELECTIVE', NULL, '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000024', 'suwon', 'CS101', 'Programming Basics', 3, 'MAJOR_REQUIRED', '60000000-0000-4000-8000-000000000001', '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000025', 'suwon', 'CS210', 'Databases', 3, 'MAJOR_ELECTIVE', '60000000-0000-4000-8000-000000000001', '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000026', 'suwon', 'BA101', 'Principles of Management', 3, 'DOUBLE_MAJOR_REQUIRED', '60000000-0000-4000-8000-000000000002', '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000027', 'suwon', 'BA220', 'Marketing', 3, 'DOUBLE_MAJOR_ELECTIVE', '60000000-0000-4000-8000-000000000002', '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000028', 'suwon', 'FE100', 'Volunteering', 1, 'FREE_ELECTIVE', NULL, '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00');
INSERT INTO students (id, user_id, portal_type, student_number, name, admission_year, department, major, double_major, enrollment_status, grade_level, credits_earned, snapshot_version, data_as_of, source_job_id, source_job_created_at, designated_courses_version, evaluation_year, evaluation_term, created_at, updated_at) VALUES
  ('60000000-0000-4000-8000-000000000031', '10000000-0000-4000-8000-000000000001', 'suwon', '20221234', 'Hong Gildong', 2022, 'Computer Science', 'Computer Science', 'Business Administration', 'ENROLLED', 3, 17, 2,
   '2026-12-01 16:05:00+00', '60000000-0000-4000-8000-0000000000f1', '2026-12-01 16:04:00+00', 1, 2026, '2', '2026-12-01 16:01:00+00', '2026-12-01 16:05:00+00'),
  ('60000000-0000-4000-8000-000000000032', '10000000-0000-4000-8000-000000000002', 'suwon', '20230001', 'Kim Jiwoo', 2023, 'Business Administration', 'Business Administration', NULL, 'LEAVE_OF_ABSENCE', 2, 0, 1,
   '2026-12-01 16:06:00+00', '60000000-0000-4000-8000-0000000000f2', '2026-12-01 16:05:30+00', 0, NULL, NULL, '2026-12-01 16:06:00+00', '2026-12-01 16:06:00+00');
INSERT INTO academic_records (student_id, credits_attempted, credits_earned, gpa, updated_at) VALUES
  ('60000000-0000-4000-8000-000000000031', 23, 17, 3.45, '2026-12-01 16:05:00+00'),
  ('60000000-0000-4000-8000-000000000032', 0, 0, NULL, '2026-12-01 16:06:00+00');
INSERT INTO student_semesters (id, student_id, year, term, gpa) VALUES
  ('60000000-0000-4000-8000-000000000041', '60000000-0000-4000-8000-000000000031', 2022, '1', 2.1),
  ('60000000-0000-4000-8000-000000000042', '60000000-0000-4000-8000-000000000031', 2026, '2', NULL);
INSERT INTO student_courses (id, student_id, semester_id, course_id, position, credits, credit_correction, grade, area, retake, professor_id) VALUES
  ('60000000-0000-4000-8000-000000000051', '60000000-0000-4000-8000-000000000031', '60000000-0000-4000-8000-000000000041', '60000000-0000-4000-8000-000000000024', 0, 3, NULL, 'F', 'MAJOR_REQUIRED', false, '60000000-0000-4000-8000-000000000011'),
  ('60000000-0000-4000-8000-000000000052', '60000000-0000-4000-8000-000000000031', '60000000-0000-4000-8000-000000000041', '60000000-0000-4000-8000-000000000021', 1, 2, 1, 'A0', 'GE_REQUIRED', false, NULL),
  ('60000000-0000-4000-8000-000000000053', '60000000-0000-4000-8000-000000000031', '60000000-0000-4000-8000-000000000042', '60000000-0000-4000-8000-000000000024', 0, 3, NULL, NULL, 'MAJOR_REQUIRED', true, '60000000-0000-4000-8000-000000000011'),
  ('60000000-0000-4000-8000-000000000054', '60000000-0000-4000-8000-000000000031', '60000000-0000-4000-8000-000000000042', '60000000-0000-4000-8000-000000000026', 1, 3, NULL, NULL, 'DOUBLE_MAJOR_REQUIRED', false, '60000000-0000-4000-8000-000000000012');
INSERT INTO designated_courses (id, student_id, position, course_id, course_code, course_name, credits, area, department) VALUES
  ('60000000-0000-4000-8000-000000000061', '60000000-0000-4000-8000-000000000031', 0, '60000000-0000-4000-8000-000000000025', 'CS210', 'Databases', 3, 'MAJOR_ELECTIVE', 'Computer Science'),
  ('60000000-0000-4000-8000-000000000062', '60000000-0000-4000-8000-000000000031', 1, '60000000-0000-4000-8000-000000000022', 'GE201', 'Understanding Society', 3, 'GE_CORE', NULL),
  ('60000000-0000-4000-8000-000000000063', '60000000-0000-4000-8000-000000000031', 2, '60000000-0000-4000-8000-000000000025', 'CS210', 'Databases', 3, 'MAJOR_ELECTIVE', 'Computer Science');
INSERT INTO language_certificates (id, student_id, position, kind, score, level, acquired_on) VALUES
  ('60000000-0000-4000-8000-000000000071', '60000000-0000-4000-8000-000000000031', 0, 'TOEIC', 785, NULL, '2025-08-20'),
  ('60000000-0000-4000-8000-000000000072', '60000000-0000-4000-8000-000000000031', 1, 'OPIc', NULL, 'IM2', '2026-03-02');
INSERT INTO course_evaluations (id, student_id, year, term, course_code, status) VALUES
  ('60000000-0000-4000-8000-000000000081', '60000000-0000-4000-8000-000000000031', 2026, '2', 'CS101', 'PENDING'),
  ('60000000-0000-4000-8000-000000000082', '60000000-0000-4000-8000-000000000031', 2026, '2', 'BA101', 'COMPLETED'),
  ('60000000-0000-4000-8000-000000000083', '60000000-0000-4000-8000-000000000031', 2026, '2', 'GE301', 'SKIPPED'),
  ('60000000-0000-4000-8000-000000000084', '60000000-0000-4000-8000-000000000031', 2026, '2', 'FE100', 'NOT_RELEASED');
INSERT INTO graduation_rules (id, portal_type, kind, name, department, major, admission_year_from, admission_year_to, total_credits, created_at, updated_at) VALUES
  ('60000000-0000-4000-8000-000000000091', 'suwon', 'PRIMARY', 'Computer Science 2020-2023', 'Computer Science', 'Computer Science', 2020, 2023, 130, '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000092', 'suwon', 'DOUBLE_MAJOR', 'Business Administration double major', NULL, 'Business Administration', 2018, NULL, NULL, '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00');
INSERT INTO graduation_rule_areas (id, rule_id, name, areas, min_credits) VALUES
  ('60000000-0000-4000-8000-0000000000a1', '60000000-0000-4000-8000-000000000091', 'General education', '{GE_REQUIRED,GE_CORE,GE_ELECTIVE}', 30),
  ('60000000-0000-4000-8000-0000000000a2', '60000000-0000-4000-8000-000000000091', 'Major', '{MAJOR_REQUIRED,MAJOR_ELECTIVE}', 60),
  ('60000000-0000-4000-8000-0000000000a3', '60000000-0000-4000-8000-000000000092', 'Double major', '{DOUBLE_MAJOR_REQUIRED,DOUBLE_MAJOR_ELECTIVE}', 36),
  ('60000000-0000-4000-8000-0000000000a4', '60000000-0000-4000-8000-000000000091', 'Free electives', '{FREE_ELECTIVE}', 0);
INSERT INTO graduation_rule_courses (id, rule_id, course_code, course_name) VALUES
  ('60000000-0000-4000-8000-0000000000b1', '60000000-0000-4000-8000-000000000091', 'CS101', 'Programming Basics'),
  ('60000000-0000-4000-8000-0000000000b2', '60000000-0000-4000-8000-000000000092', 'BA101', 'Principles of Management');
INSERT INTO graduation_rule_languages (id, rule_id, kind, min_score, levels) VALUES
  ('60000000-0000-4000-8000-0000000000c1', '60000000-0000-4000-8000-000000000091', 'TOEIC', 700, '{}'),
  ('60000000-0000-4000-8000-0000000000c2', '60000000-0000-4000-8000-000000000091', 'OPIc', NULL, '{IM2,IM3,IH,AL}');
