-- Data written by the release of migration 20261201150000_ai_run_pending_inputs: the sealed input of
-- the QUEUED run of the previous seed whose workflow start is still pending (a lost start).
INSERT INTO ai_run_pending_inputs (run_id, key_id, ciphertext, created_at) VALUES
  ('50000000-0000-4000-8000-000000000203', 'dev', 'v1.dev.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA', '2026-12-01 13:04:00+00');
