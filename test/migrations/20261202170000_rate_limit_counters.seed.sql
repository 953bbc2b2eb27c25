-- Data written by the release of migration 20261202170000_rate_limit_counters (the shared
-- fixed-window counters of the API rate limits): a user's and a company's counter in a window.
INSERT INTO rate_limit_counters (key, window_start, hits) VALUES
  ('user:10000000-0000-4000-8000-000000000001', 1796227200000, 12),
  ('company:50000000-0000-4000-8000-000000000001', 1796227200000, 3);
