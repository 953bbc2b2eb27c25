-- Data written by the release of migration 20261130000000_init: two users (default and explicit
-- time zone), an active and a revoked API token, a refined and an unrefined scrap (Korean text,
-- an emoji outside the BMP), categories, tags, knowledge cards with real 1536-d float32
-- little-endian embeddings, and async_jobs in every status and of every job type.

INSERT INTO users (id, name, time_zone, created_at) VALUES
  ('10000000-0000-4000-8000-000000000001', 'alice', DEFAULT, '2026-11-30 08:00:00.123+00'),
  ('10000000-0000-4000-8000-000000000002', '김민준', 'Asia/Seoul', '2026-11-30 08:05:00.456+00');

INSERT INTO api_tokens (id, user_id, token_hash, label, created_at, revoked_at) VALUES
  ('11000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001',
   encode(sha256(convert_to('dj_alice_token_1', 'UTF8')), 'hex'), 'laptop', '2026-11-30 08:00:01+00', NULL),
  ('11000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002',
   encode(sha256(convert_to('dj_minjun_token_1', 'UTF8')), 'hex'), NULL, '2026-11-30 08:05:01+00', '2026-11-30 12:00:00.789+00');

INSERT INTO scraps (id, user_id, content, content_hash, source_url, title, refined_content, refined_at, created_at) VALUES
  ('20000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001',
   E'B-tree indexes keep keys sorted, so range scans and ORDER BY can walk the leaf pages.\nA partial index covers only the rows its predicate selects.',
   encode(sha256(convert_to(E'B-tree indexes keep keys sorted, so range scans and ORDER BY can walk the leaf pages.\nA partial index covers only the rows its predicate selects.', 'UTF8')), 'hex'),
   'https://www.postgresql.org/docs/15/indexes-types.html', 'B-tree indexes',
   E'# B-tree indexes\n\n- keys stay sorted\n- partial indexes cover a subset', '2026-11-30 09:00:05.500+00', '2026-11-30 09:00:00+00'),
  ('20000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002',
   '오늘은 Temporal 워크플로의 결정성을 배웠다 🌳 재생(replay)은 같은 명령을 다시 만든다.',
   encode(sha256(convert_to('오늘은 Temporal 워크플로의 결정성을 배웠다 🌳 재생(replay)은 같은 명령을 다시 만든다.', 'UTF8')), 'hex'),
   NULL, NULL, NULL, NULL, '2026-11-30 10:00:00+00');

INSERT INTO categories (id, name) VALUES
  ('21000000-0000-4000-8000-000000000001', 'Databases'),
  ('21000000-0000-4000-8000-000000000002', 'Distributed Systems');

INSERT INTO tags (id, name) VALUES
  ('22000000-0000-4000-8000-000000000001', 'postgresql'),
  ('22000000-0000-4000-8000-000000000002', 'b-tree'),
  ('22000000-0000-4000-8000-000000000003', '결정성');

-- embedding: float32 little-endian of sin(i * step + phase), i = 0 … 1535 (6144 bytes).
INSERT INTO knowledge_cards (id, user_id, scrap_id, category_id, title, summary, embedding, created_at)
SELECT c.id::uuid, c.user_id::uuid, c.scrap_id::uuid, c.category_id::uuid, c.title, c.summary,
       (SELECT string_agg(substring(b FROM 4 FOR 1) || substring(b FROM 3 FOR 1) || substring(b FROM 2 FOR 1) || substring(b FROM 1 FOR 1),
                          ''::bytea ORDER BY i)
          FROM (SELECT i, float4send(sin(i * c.step + c.phase)::float4) AS b FROM generate_series(0, 1535) AS i) v),
       c.created_at::timestamptz
  FROM (VALUES
    ('23000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001', '20000000-0000-4000-8000-000000000001',
     '21000000-0000-4000-8000-000000000001', 'B-tree indexes', 'Sorted keys make range scans cheap; partial indexes cover a subset.',
     0.37, 0.0, '2026-11-30 09:00:04.250+00'),
    ('23000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002', '20000000-0000-4000-8000-000000000002',
     '21000000-0000-4000-8000-000000000002', 'Temporal 결정성', '재생은 같은 명령을 다시 만든다 🌳',
     0.11, 1.5, '2026-11-30 10:00:03+00')
  ) AS c(id, user_id, scrap_id, category_id, title, summary, step, phase, created_at);

INSERT INTO knowledge_card_tags (card_id, tag_id) VALUES
  ('23000000-0000-4000-8000-000000000001', '22000000-0000-4000-8000-000000000001'),
  ('23000000-0000-4000-8000-000000000001', '22000000-0000-4000-8000-000000000002'),
  ('23000000-0000-4000-8000-000000000002', '22000000-0000-4000-8000-000000000003');

-- Every status and every job type; active (PENDING, PROCESSING) jobs have distinct targets (SAN-2).
INSERT INTO async_jobs (job_id, job_type, target_id, user_id, status, error_message, retry_count, created_at, updated_at, started_at, finished_at) VALUES
  ('30000000-0000-4000-8000-000000000001', 'CARD_ANALYSIS', '20000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001',
   'COMPLETED', NULL, 0, '2026-11-30 09:00:00.001+00', '2026-11-30 09:00:04.250+00', '2026-11-30 09:00:01+00', '2026-11-30 09:00:04.250+00'),
  ('30000000-0000-4000-8000-000000000002', 'SCRAP_REFINE', '20000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000001',
   'COMPLETED', NULL, 1, '2026-11-30 09:00:00.002+00', '2026-11-30 09:00:05.500+00', '2026-11-30 09:00:02+00', '2026-11-30 09:00:05.500+00'),
  ('30000000-0000-4000-8000-000000000003', 'CARD_ANALYSIS', '20000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002',
   'FAILED', 'ActivityFailure: activity task failed <- ApplicationFailure[AI_MALFORMED_OUTPUT]: summary missing', 3,
   '2026-11-30 10:00:00.001+00', '2026-11-30 10:05:00+00', '2026-11-30 10:00:01+00', '2026-11-30 10:05:00+00'),
  ('30000000-0000-4000-8000-000000000004', 'SCRAP_REFINE', '20000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002',
   'PROCESSING', NULL, 0, '2026-11-30 10:00:00.002+00', '2026-11-30 10:00:02+00', '2026-11-30 10:00:02+00', NULL),
  ('30000000-0000-4000-8000-000000000005', 'TIL_GENERATION', '40000000-0000-4000-8000-000000000009', '10000000-0000-4000-8000-000000000001',
   'PENDING', NULL, 0, '2026-11-30 11:00:00+00', '2026-11-30 11:00:00+00', NULL, NULL),
  ('30000000-0000-4000-8000-000000000006', 'TIL_GITHUB_COMMIT', '43000000-0000-4000-8000-000000000009', '10000000-0000-4000-8000-000000000001',
   'FAILED', 'RequestError: Bad credentials', 0, '2026-11-30 11:10:00+00', '2026-11-30 11:10:03+00', '2026-11-30 11:10:01+00', '2026-11-30 11:10:03+00'),
  ('30000000-0000-4000-8000-000000000007', 'RECALL_QUIZ_GENERATION', '44000000-0000-4000-8000-000000000009', '10000000-0000-4000-8000-000000000002',
   'PENDING', NULL, 2, '2026-11-30 11:20:00+00', '2026-11-30 11:20:00+00', NULL, NULL),
  ('30000000-0000-4000-8000-000000000008', 'GITHUB_STAR_RECOMMENDATION', '10000000-0000-4000-8000-000000000002', '10000000-0000-4000-8000-000000000002',
   'PROCESSING', NULL, 0, '2026-11-30 11:30:00+00', '2026-11-30 11:30:01+00', '2026-11-30 11:30:01+00', NULL);
