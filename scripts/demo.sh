#!/usr/bin/env bash
# README command 1: installs what is missing, then runs the demo (scripts/demo/main.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node_modules/.bin/tsx scripts/demo/main.ts "$@"
