#!/usr/bin/env bash
# `npm run schemathesis`: property-based API tests of the OpenAPI document against a running stack.
#  1. Installs schemathesis (SCHEMATHESIS_VERSION, pip from PyPI) into the venv .tools/schemathesis.
#  2. Starts the test stack (scripts/schemathesis/stack.ts: PostgreSQL 15, the Temporal dev server,
#     moto, workers, the API on a free port; a user that owns a company) and waits for it.
#  3. Runs `schemathesis run` with every phase (examples, coverage, fuzzing, stateful) and every
#     check, the config scripts/schemathesis/schemathesis.toml (documented exclusions: docs/decisions.md)
#     and the hooks scripts/schemathesis/hooks.py; reports go to .data/schemathesis/.
#  4. Stops the stack; the exit code is schemathesis's (non-zero on any failure).
# Arguments are passed to `schemathesis run` (e.g. `-n 50`, `--seed 1`, `--include-path-regex /portal`);
# `--install` alone only does step 1 (scripts/test.sh runs it in the background during setup and the
# main jest suite, then the whole script with a fixed seed).
# SCHEMATHESIS_KEEP=1 leaves the stack up after the run until Ctrl-C (prints its URL and token).
set -euo pipefail
cd "$(dirname "$0")/.."
version="${SCHEMATHESIS_VERSION:-4.32.5}"
venv=.tools/schemathesis
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null | awk '{print $NF}')" != "$version" ]; then
  echo "schemathesis: installing schemathesis==$version into $venv"
  mkdir -p .tools
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
  "$venv/bin/schemathesis" --version >/dev/null
fi
[ "${1:-}" = --install ] && exit 0
[ -d node_modules ] || npm ci

out=.data/schemathesis
mkdir -p "$out"
info="$(mktemp)"
rm -f "$info"
log="$out/stack.log"
t0=$(date +%s)
# The stack in its own process group, so that the clean-up stops everything it started.
set -m
nice -n 5 node_modules/.bin/tsx scripts/schemathesis/stack.ts "$info" >"$log" 2>&1 &
stack_pid=$!
set +m
cleanup() {
  if kill -0 "$stack_pid" 2>/dev/null; then
    kill -TERM "$stack_pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$stack_pid" 2>/dev/null || break; sleep 1; done
    kill -KILL -- "-$stack_pid" 2>/dev/null || true
  fi
  rm -f "$info"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for _ in $(seq 1 600); do
  [ -s "$info" ] && break
  if ! kill -0 "$stack_pid" 2>/dev/null; then cat "$log" >&2; echo "schemathesis: the stack did not start" >&2; exit 1; fi
  sleep 1
done
[ -s "$info" ] || { cat "$log" >&2; echo "schemathesis: the stack did not start within 600 s" >&2; exit 1; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$info" "$1"; }
api="$(field apiUrl)"
export SCHEMATHESIS_TOKEN SCHEMATHESIS_COMPANY_ID SCHEMATHESIS_AI_RUN_IDS SCHEMATHESIS_TASK_IDS
SCHEMATHESIS_TOKEN="$(field token)"
SCHEMATHESIS_COMPANY_ID="$(field companyId)"
SCHEMATHESIS_AI_RUN_IDS="$(field aiRunIds | tr -d "[]' ")"
SCHEMATHESIS_TASK_IDS="$(field taskIds | tr -d "[]' ")"
t1=$(date +%s)
echo "schemathesis: stack up in $((t1 - t0)) s at $api"

rc=0
PYTHONPATH="scripts/schemathesis${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=hooks \
  nice -n 5 "$venv/bin/schemathesis" --config-file scripts/schemathesis/schemathesis.toml run "$api/openapi.json" \
  --phases examples,coverage,fuzzing,stateful --checks all \
  --report junit,ndjson --report-dir "$out" "$@" || rc=$?
t2=$(date +%s)
echo "schemathesis: run $((t2 - t1)) s (stack start $((t1 - t0)) s, total $((t2 - t0)) s), exit code $rc; reports in $out"
if [ "${SCHEMATHESIS_KEEP:-}" = 1 ]; then
  echo "schemathesis: stack kept at $api (token $SCHEMATHESIS_TOKEN, company $SCHEMATHESIS_COMPANY_ID); Ctrl-C stops it"
  wait "$stack_pid" || true
fi
exit "$rc"
