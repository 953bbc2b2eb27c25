#!/usr/bin/env bash
# Runs the Prisma CLI offline: the JS schema engine needs no native binary, but the CLI checks
# these two variables before it would download one, so they point at an existing file.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export PRISMA_SCHEMA_ENGINE_BINARY="${PRISMA_SCHEMA_ENGINE_BINARY:-$root/package.json}"
export PRISMA_QUERY_ENGINE_LIBRARY="${PRISMA_QUERY_ENGINE_LIBRARY:-$root/package.json}"
export PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1
exec "$root/node_modules/.bin/prisma" "$@"
