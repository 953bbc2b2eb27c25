#!/usr/bin/env bash
# The test command (`npm test`, CI): bootstrap, lint, typecheck, then jest with any arguments given.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
npm run --silent lint
npm run --silent typecheck
npx jest "$@"
