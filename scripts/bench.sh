#!/usr/bin/env bash
# `npm run bench [-- --quick]`: installs what is missing, then runs the benchmark (scripts/bench/main.ts),
# which starts and stops its own PostgreSQL 15, Temporal dev server, embedded PGlite, API and workers.
# With `--topology cluster` it also needs the Temporal server build (scripts/cluster/install.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
for arg in "$@"; do
  if [ "$arg" = "cluster" ] || [ "$arg" = "--topology=cluster" ]; then bash scripts/cluster/install.sh; break; fi
done
# `node --import tsx` rather than the tsx CLI: the CLI SIGKILLs its child when the child does not
# acknowledge a Ctrl-C within 30 ms (a busy event loop on a loaded machine), which would skip the
# clean-up of the servers this benchmark starts.
exec node --import tsx scripts/bench/main.ts "$@"
