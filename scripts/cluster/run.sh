#!/usr/bin/env bash
# `npm run cluster`: installs what is missing (scripts/setup.sh, then the Temporal server build,
# scripts/cluster/install.sh), then runs the cluster (scripts/cluster/main.ts) in the foreground.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/cluster/install.sh
# `node --import tsx` rather than the tsx CLI, which SIGKILLs its child when a Ctrl-C is not
# acknowledged within 30 ms: that would skip stopping the processes the cluster started.
exec node --import tsx scripts/cluster/main.ts "$@"
