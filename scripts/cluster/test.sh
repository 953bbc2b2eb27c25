#!/usr/bin/env bash
# `npm run test:cluster`: installs what is missing (setup, the Temporal server build), then the
# cluster suite (jest.cluster.config.js), which starts and stops the production topology itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/cluster/install.sh
npx jest -c jest.cluster.config.js "$@"
