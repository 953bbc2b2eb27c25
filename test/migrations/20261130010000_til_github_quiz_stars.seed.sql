-- Data written by the release of migration 20261130010000_til_github_quiz_stars, over the data of
-- the init release: a completed TIL (1536-d float32 LE embedding, source cards) and a pending one, a linked GitHub
-- account and repository, TIL commits in every status, recall-quiz generations with both quiz
-- types, their quizzes, and a star recommendation with nested JSON items.

INSERT INTO daily_summaries (id, user_id, target_date, title, til_markdown, embedding, source_card_ids, generated_at, created_at, updated_at) VALUES
  ('40000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', '2026-11-30',
   'TIL: B-tree indexes', E'# TIL 2026-11-30\n\n- B-tree keys stay sorted\n- partial indexes 🌳',
   (SELECT string_agg(substring(b FROM 4 FOR 1) || substring(b FROM 3 FOR 1) || substring(b FROM 2 FOR 1) || substring(b FROM 1 FOR 1),
                      ''::bytea ORDER BY i)
      FROM (SELECT i, float4send(cos(i * 0.23)::float4) AS b FROM generate_series(0, 1535) AS i) v),
   ARRAY['23000000-0000-4000-8000-000000000001']::uuid[], '2026-11-30 23:00:05.125+00', '2026-11-30 23:00:00+00', '2026-11-30 23:00:05.125+00'),
  ('40000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002', '2026-12-01',
   NULL, NULL, NULL, DEFAULT, NULL, '2026-12-01 00:10:00+00', '2026-12-01 00:10:00+00');

INSERT INTO github_accounts (id, user_id, login, token_encrypted, key_id, created_at, updated_at) VALUES
  ('41000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', 'alice-gh',
   'v1.Zm9vYmFyYmF6cXV4.aXZpdml2aXZpdml2.dGFndGFndGFndGFn', 'k2026', '2026-11-30 12:00:00+00', '2026-11-30 12:30:00.250+00'),
  ('41000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002', NULL,
   'v1.YmF6YmF6YmF6YmF6.bm9uY2Vub25jZW5v.dGFnMnRhZzJ0YWcy', 'k2025', '2026-11-30 12:05:00+00', '2026-11-30 12:05:00+00');

INSERT INTO github_repositories (id, user_id, owner, name, branch, directory, created_at, updated_at) VALUES
  ('42000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', 'alice-gh', 'til', 'main', 'notes/til',
   '2026-11-30 12:01:00+00', '2026-11-30 12:01:00+00'),
  ('42000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002', 'minjun', '배움', 'trunk', DEFAULT,
   '2026-11-30 12:06:00+00', '2026-11-30 12:06:00+00');

-- Every status; live commits (PENDING, PROCESSING, COMPLETED) have distinct contents and paths.
INSERT INTO til_github_commits (id, user_id, summary_id, content_hash, repo_owner, repo_name, branch, file_path, status, commit_sha, html_url, error_message, created_at, updated_at, finished_at) VALUES
  ('43000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', '40000000-0000-4000-8000-000000000001',
   encode(sha256(convert_to('til v1', 'UTF8')), 'hex'), 'alice-gh', 'til', 'main', 'notes/til/2026-11-30-b-tree-indexes.md',
   'COMPLETED', '3f786850e387550fdab836ed7e6dc881de23001b', 'https://github.com/alice-gh/til/blob/main/notes/til/2026-11-30-b-tree-indexes.md',
   NULL, '2026-11-30 23:10:00+00', '2026-11-30 23:10:02.500+00', '2026-11-30 23:10:02.500+00'),
  ('43000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000001', '40000000-0000-4000-8000-000000000001',
   encode(sha256(convert_to('til v2', 'UTF8')), 'hex'), 'alice-gh', 'til', 'main', 'notes/til/2026-11-30-b-tree-indexes-2.md',
   'FAILED', NULL, NULL, 'ApplicationFailure[PATH_TAKEN]: notes/til/2026-11-30-b-tree-indexes-2.md holds other content',
   '2026-11-30 23:20:00+00', '2026-11-30 23:20:01+00', '2026-11-30 23:20:01+00'),
  ('43000000-0000-4000-8000-000000000003', '10000000-0000-4000-8000-000000000001', '40000000-0000-4000-8000-000000000001',
   encode(sha256(convert_to('til v3', 'UTF8')), 'hex'), 'alice-gh', 'til', 'main', 'notes/til/2026-11-30-b-tree-indexes-3.md',
   'PENDING', NULL, NULL, NULL, '2026-11-30 23:30:00+00', '2026-11-30 23:30:00+00', NULL),
  ('43000000-0000-4000-8000-000000000004', '10000000-0000-4000-8000-000000000001', '40000000-0000-4000-8000-000000000001',
   encode(sha256(convert_to('til v4', 'UTF8')), 'hex'), 'alice-gh', 'til', 'main', 'notes/til/2026-11-30-b-tree-indexes-4.md',
   'PROCESSING', NULL, NULL, NULL, '2026-11-30 23:40:00+00', '2026-11-30 23:40:01+00', NULL);

INSERT INTO recall_quiz_generations (id, user_id, target_date, quiz_types, summary_id, status, created_at, updated_at) VALUES
  ('44000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', '2026-11-30',
   ARRAY['OX', 'SHORT_ANSWER']::"QuizType"[], '40000000-0000-4000-8000-000000000001', 'COMPLETED',
   '2026-11-30 23:00:06+00', '2026-11-30 23:00:09.750+00'),
  ('44000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002', '2026-12-01',
   ARRAY['SHORT_ANSWER']::"QuizType"[], NULL, 'FAILED', '2026-12-01 00:20:00+00', '2026-12-01 00:20:04+00');

INSERT INTO recall_quizzes (id, generation_id, position, type, question, answer, explanation, source_card_id) VALUES
  ('45000000-0000-4000-8000-000000000001', '44000000-0000-4000-8000-000000000001', 0, 'OX',
   'A B-tree index keeps its keys sorted.', 'O', 'Sorted keys are what make range scans cheap.', '23000000-0000-4000-8000-000000000001'),
  ('45000000-0000-4000-8000-000000000002', '44000000-0000-4000-8000-000000000001', 1, 'SHORT_ANSWER',
   'Which kind of index covers only the rows its predicate selects?', 'A partial index', '술어(predicate)가 고른 행만 담는다 🌳',
   '23000000-0000-4000-8000-000000000001');

INSERT INTO github_star_recommendations (id, user_id, job_id, starred_count, items, created_at) VALUES
  ('46000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000002', '30000000-0000-4000-8000-000000000099', 2,
   '[{"rank": 1, "fullName": "temporalio/sdk-typescript", "htmlUrl": "https://github.com/temporalio/sdk-typescript",
      "description": "Temporal TypeScript SDK", "language": "TypeScript", "stars": 612, "topics": ["workflow", "durable-execution"],
      "score": 0.8125, "relevance": 0.79, "reasons": [{"cardId": "23000000-0000-4000-8000-000000000002", "title": "Temporal 결정성", "similarity": 0.79}]},
     {"rank": 2, "fullName": "postgres/postgres", "htmlUrl": "https://github.com/postgres/postgres", "description": null,
      "language": "C", "stars": 17000, "topics": [], "score": 0.4, "relevance": 0.31, "reasons": []}]',
   '2026-11-30 11:30:09+00');
