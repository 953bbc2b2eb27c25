-- Data written by the release of migration 20261201170000_study_memo_cards: topics (one focused),
-- questions with and without an explanation (AI and hand-written, one flagged needs_review, one
-- with an embedding), extraction jobs in every status for question and knowledge-card sources,
-- live and retired cards of both kinds with evidence, progress, a review, a reminder and its outbox row.
INSERT INTO study_topics (id, user_id, name, focused_at, created_at) VALUES
  ('60000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', 'PostgreSQL indexes', '2026-12-01 17:00:00.500+00', '2026-12-01 16:00:00+00'),
  ('60000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002', '운영체제', NULL, '2026-12-01 16:01:00+00');

INSERT INTO study_questions (id, user_id, topic_id, question, user_answer, ai_explanation, ai_explanation_generated_at, explanation_origin, embedding,
                             needs_review, needs_review_reason, needs_review_at, created_at, updated_at)
SELECT q.id::uuid, q.user_id::uuid, q.topic_id::uuid, q.question, q.user_answer, q.ai_explanation, q.generated_at::timestamptz,
       q.origin::"StudyExplanationOrigin",
       CASE WHEN q.with_embedding THEN
         (SELECT string_agg(substring(b FROM 4 FOR 1) || substring(b FROM 3 FOR 1) || substring(b FROM 2 FOR 1) || substring(b FROM 1 FOR 1),
                            ''::bytea ORDER BY i)
            FROM (SELECT i, float4send(cos(i * 0.21)::float4) AS b FROM generate_series(0, 1535) AS i) v)
       END,
       q.needs_review, q.reason, q.review_at::timestamptz, q.created_at::timestamptz, q.updated_at::timestamptz
  FROM (VALUES
    ('61000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', '60000000-0000-4000-8000-000000000001',
     'What is a partial index?', 'An index over some rows',
     'A partial index is an index built over a subset of a table. It stores only the rows that match its WHERE clause, so it stays small.',
     '2026-12-01 16:10:00.125+00', 'ai', true, false, NULL, NULL, '2026-12-01 16:05:00+00', '2026-12-01 16:10:00.125+00'),
    ('61000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000001', '60000000-0000-4000-8000-000000000001',
     'How many pages does a B-tree touch?', NULL,
     'A B-tree lookup touches about 3 pages for a table of 1,000,000 rows.',
     '2026-12-01 16:20:00+00', 'manual', false, true, 'all_dropped: 2 of 2 cards dropped (number_not_in_evidence 2)', '2026-12-01 16:21:00+00',
     '2026-12-01 16:06:00+00', '2026-12-01 16:21:00+00'),
    ('61000000-0000-4000-8000-000000000003', '10000000-0000-4000-8000-000000000002', '60000000-0000-4000-8000-000000000002',
     '교착 상태의 네 가지 조건은?', '상호 배제, 점유 대기', NULL, NULL, NULL, false, false, NULL, NULL, '2026-12-01 16:07:00+00', '2026-12-01 16:07:00+00')
  ) AS q(id, user_id, topic_id, question, user_answer, ai_explanation, generated_at, origin, with_embedding, needs_review, reason, review_at, created_at, updated_at);

INSERT INTO study_memo_card_jobs (id, user_id, source_kind, source_id, source_version, kind, status, attempts, max_attempts, error_code, error_message,
                                  payload, workflow_id, created_at, started_at, completed_at) VALUES
  ('62000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', 'study_question', '61000000-0000-4000-8000-000000000001',
   '2026-12-01 16:00:00.250+00', 'card_extract', 'completed', 1, 2, NULL, NULL,
   '{"cards": {"added": 2, "kept": 0, "retired": 0}, "dropped": {}}', 'study-card-extract:study_question:61000000-0000-4000-8000-000000000001:2026-12-01T16:00:00.250Z',
   '2026-12-01 16:00:01+00', '2026-12-01 16:00:02+00', '2026-12-01 16:00:03+00'),
  ('62000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000001', 'study_question', '61000000-0000-4000-8000-000000000001',
   '2026-12-01 16:10:00.125+00', 'card_extract', 'processing', 1, 2, 'llm_timeout', 'attempt 1: the AI runtime timed out',
   NULL, 'study-card-extract:study_question:61000000-0000-4000-8000-000000000001:2026-12-01T16:10:00.125Z',
   '2026-12-01 16:10:01+00', '2026-12-01 16:10:02+00', NULL),
  ('62000000-0000-4000-8000-000000000003', '10000000-0000-4000-8000-000000000001', 'study_question', '61000000-0000-4000-8000-000000000002',
   '2026-12-01 16:15:00+00', 'card_extract', 'failed', 2, 2, 'parse_fail', 'the AI answer is not a card batch',
   '{"attempts": [{"errorCode": "parse_fail"}, {"errorCode": "parse_fail"}]}', 'study-card-extract:study_question:61000000-0000-4000-8000-000000000002:2026-12-01T16:15:00.000Z',
   '2026-12-01 16:15:01+00', '2026-12-01 16:15:02+00', '2026-12-01 16:15:09+00'),
  ('62000000-0000-4000-8000-000000000004', '10000000-0000-4000-8000-000000000001', 'study_question', '61000000-0000-4000-8000-000000000002',
   '2026-12-01 16:20:00+00', 'card_extract', 'completed', 1, 2, 'all_dropped', 'every card was dropped by the guards',
   '{"cards": {"added": 0, "kept": 0, "retired": 0}, "dropped": {"number_not_in_evidence": 2}}', 'study-card-extract:study_question:61000000-0000-4000-8000-000000000002:2026-12-01T16:20:00.000Z',
   '2026-12-01 16:20:01+00', '2026-12-01 16:20:02+00', '2026-12-01 16:20:04+00'),
  ('62000000-0000-4000-8000-000000000005', '10000000-0000-4000-8000-000000000002', 'study_question', '61000000-0000-4000-8000-000000000003',
   '2026-12-01 16:08:00+00', 'card_extract', 'skipped', 1, 2, 'no_ready_explanation', 'the question has no explanation',
   NULL, 'study-card-extract:study_question:61000000-0000-4000-8000-000000000003:2026-12-01T16:08:00.000Z',
   '2026-12-01 16:08:01+00', '2026-12-01 16:08:02+00', '2026-12-01 16:08:02+00'),
  ('62000000-0000-4000-8000-000000000006', '10000000-0000-4000-8000-000000000002', 'knowledge_card', '23000000-0000-4000-8000-000000000002',
   '2026-11-30 10:00:03+00', 'card_extract', 'pending', 0, 2, NULL, NULL,
   '{"requestedBy": "poller"}', 'study-card-extract:knowledge_card:23000000-0000-4000-8000-000000000002:2026-11-30T10:00:03.000Z',
   '2026-12-01 16:30:00+00', NULL, NULL);

INSERT INTO study_memo_cards (id, user_id, topic_id, source_kind, source_id, source_version, kind, cue, answer, cloze_text, normalized_key,
                              job_id, retired_by_job_id, created_at, deleted_at) VALUES
  ('63000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', '60000000-0000-4000-8000-000000000001', 'study_question',
   '61000000-0000-4000-8000-000000000001', '2026-12-01 16:00:00.250+00', 'basic', 'What is a partial index?', 'an index built over a subset of a table', NULL,
   'basic|what is a partial index|an index built over a subset of a table', '62000000-0000-4000-8000-000000000001', NULL, '2026-12-01 16:00:03+00', NULL),
  ('63000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000001', '60000000-0000-4000-8000-000000000001', 'study_question',
   '61000000-0000-4000-8000-000000000001', '2026-12-01 16:00:00.250+00', 'cloze', NULL, 'WHERE clause', 'A partial index stores only the rows that match its {{c1::WHERE clause}}.',
   'cloze|a partial index stores only the rows that match its where clause', '62000000-0000-4000-8000-000000000001', '62000000-0000-4000-8000-000000000002',
   '2026-12-01 16:00:03+00', '2026-12-01 16:10:05+00'),
  ('63000000-0000-4000-8000-000000000003', '10000000-0000-4000-8000-000000000002', NULL, 'knowledge_card',
   '23000000-0000-4000-8000-000000000002', '2026-11-30 10:00:03+00', 'basic', '재생은 무엇을 다시 만드는가?', '같은 명령', NULL,
   'basic|재생은 무엇을 다시 만드는가|같은 명령', '62000000-0000-4000-8000-000000000006', NULL, '2026-12-01 16:31:00+00', NULL);

INSERT INTO study_memo_card_evidence (id, card_id, ordinal, source_kind, source_id, quote, created_at) VALUES
  ('64000000-0000-4000-8000-000000000001', '63000000-0000-4000-8000-000000000001', 0, 'study_question', '61000000-0000-4000-8000-000000000001',
   'A partial index is an index built over a subset of a table.', '2026-12-01 16:00:03+00'),
  ('64000000-0000-4000-8000-000000000002', '63000000-0000-4000-8000-000000000002', 0, 'study_question', '61000000-0000-4000-8000-000000000001',
   'It stores only the rows that match its WHERE clause, so it stays small.', '2026-12-01 16:00:03+00'),
  ('64000000-0000-4000-8000-000000000003', '63000000-0000-4000-8000-000000000003', 0, 'knowledge_card', '23000000-0000-4000-8000-000000000002',
   '재생은 같은 명령을 다시 만든다 🌳', '2026-12-01 16:31:00+00');

INSERT INTO study_memo_card_progress (card_id, user_id, due, stability, difficulty, elapsed_days, scheduled_days, learning_steps, reps, lapses, state, last_review, updated_at) VALUES
  ('63000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', '2026-12-03 16:40:00+00', 2.3065, 2.11810397, 0, 2, 0, 1, 0, 2,
   '2026-12-01 16:40:00+00', '2026-12-01 16:40:00+00'),
  ('63000000-0000-4000-8000-000000000003', '10000000-0000-4000-8000-000000000002', '2026-12-01 16:31:00+00', 0, 0, 0, 0, 0, 0, 0, 0, NULL, '2026-12-01 16:31:00+00');

INSERT INTO study_memo_card_reviews (id, card_id, user_id, rating, state, due, stability, difficulty, elapsed_days, last_elapsed_days, scheduled_days,
                                     learning_steps, reviewed_at, created_at) VALUES
  ('65000000-0000-4000-8000-000000000001', '63000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', 3, 0,
   '2026-12-01 16:00:03+00', 0, 0, 0, 0, 0, 0, '2026-12-01 16:40:00+00', '2026-12-01 16:40:00+00');

INSERT INTO study_reminders (user_id, local_time, time_zone, enabled, created_at, updated_at) VALUES
  ('10000000-0000-4000-8000-000000000001', '08:30', 'UTC', true, '2026-12-01 16:00:00+00', '2026-12-01 16:00:00+00'),
  ('10000000-0000-4000-8000-000000000002', '21:00', 'Asia/Seoul', false, '2026-12-01 16:01:00+00', '2026-12-01 16:02:00+00');

INSERT INTO study_reminder_outbox (id, user_id, local_date, due_count, created_at, read_at) VALUES
  ('66000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', '2026-12-01', 1, '2026-12-01 08:30:01+00', NULL),
  ('66000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000001', '2026-11-30', 3, '2026-11-30 08:30:00+00', '2026-11-30 09:00:00+00');
