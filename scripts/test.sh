#!/usr/bin/env bash
# The test command (`npm test`, CI): everything, with the time of each phase.
#  1. The Temporal server build for the cluster suite (scripts/cluster/install.sh: `go install` from
#     the Go module proxy into .tools/; minutes on a fresh machine, seconds with Go's caches) starts
#     niced in the background.
#     Schemathesis (pip, PyPI: `scripts/schemathesis.sh --install`) installs niced in the background too.
#  2. Bootstrap, lint, typecheck, then the main jest suite.
#  3. Schemathesis against the test stack (`npm run schemathesis`: every phase and check, seed
#     SCHEMATHESIS_SEED, default 1), while the build may still be running; any failure fails the command.
#     Its output goes to .data/schemathesis/output.log; one summary line is printed (the log's tail on failure).
#  4. Once the build is done, the cluster suite (jest.cluster.config.js, also `npm run test:cluster`),
#     which starts the production topology itself.
# Arguments are a jest filter for the main suite: `npm test -- test/unit` runs those tests only
# (no build, no cluster suite).
# The last line is the tally of both jest suites in jest's own form, `Tests: N passed, N total` (from
# their --json reports), which CI reads; Schemathesis's pytest-style output stays in its log.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
if [ "$#" -gt 0 ]; then
  bash scripts/setup.sh
  npm run --silent lint
  npm run --silent typecheck
  exec npx jest "$@"
fi

install_log="$(mktemp)"
# In its own process group (job control on for this one job), so that an early exit stops the whole build.
set -m
nice -n 10 bash -c 't=$(date +%s); bash scripts/cluster/install.sh; echo "built in $(( $(date +%s) - t )) s"' >"$install_log" 2>&1 &
install_pid=$!
st_install_log="$(mktemp)"
results_dir="$(mktemp -d)"
nice -n 10 bash scripts/schemathesis.sh --install >"$st_install_log" 2>&1 &
st_install_pid=$!
set +m
cleanup() {
  for pid in "$install_pid" "$st_install_pid"; do
    if kill -0 "$pid" 2>/dev/null; then kill -TERM -- "-$pid" 2>/dev/null || true; fi
  done
  rm -f "$install_log" "$st_install_log"
  rm -rf "$results_dir"
}
trap cleanup EXIT

# Prints the jest tally of the given --json reports (the closing line CI reads).
tally() {
node -e '
let passed = 0, failed = 0;
for (const file of process.argv.slice(1)) {
  const r = JSON.parse(require("fs").readFileSync(file, "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
}
console.log(`Tests:       ${failed ? `${failed} failed, ` : ""}${passed} passed, ${passed + failed} total`);
' "$@"
}

bash scripts/setup.sh
npm run --silent lint
npm run --silent typecheck
t1=$(date +%s)
if ! npx jest --json --outputFile="$results_dir/main.json"; then
  if [ -s "$results_dir/main.json" ]; then tally "$results_dir/main.json"; fi
  exit 1
fi
t2=$(date +%s)
if ! wait "$st_install_pid"; then
  cat "$st_install_log" >&2
  echo "test: installing Schemathesis failed (scripts/schemathesis.sh --install)" >&2
  exit 1
fi
st_log=.data/schemathesis/output.log
mkdir -p .data/schemathesis
if ! bash scripts/schemathesis.sh --seed "${SCHEMATHESIS_SEED:-1}" >"$st_log" 2>&1; then
  tail -n 150 "$st_log" >&2
  echo "test: schemathesis failed (output in $st_log, reports in .data/schemathesis/; again alone: npm run schemathesis -- --seed ${SCHEMATHESIS_SEED:-1})" >&2
  exit 1
fi
echo "schemathesis: $(grep -m1 -E '^ *Selected:' "$st_log" | sed 's/^ *Selected: *//') operations, $(grep -m1 -oE '^ *[0-9]+ generated' "$st_log" | tr -d ' ' | sed 's/generated//') cases, no failure (output in $st_log)"
t2b=$(date +%s)
build_running=done
if kill -0 "$install_pid" 2>/dev/null; then build_running="still building"; fi
if ! wait "$install_pid"; then
  cat "$install_log" >&2
  echo "test: the Temporal server build for the cluster suite failed (scripts/cluster/install.sh)" >&2
  exit 1
fi
t3=$(date +%s)
if ! npm run --silent test:cluster -- --json --outputFile="$results_dir/cluster.json"; then
  if [ -s "$results_dir/cluster.json" ]; then tally "$results_dir/main.json" "$results_dir/cluster.json"; fi
  exit 1
fi
t4=$(date +%s)
echo "test: setup, lint, typecheck $((t1 - t0)) s; main suite $((t2 - t1)) s; schemathesis $((t2b - t2)) s (Temporal server build $build_running at its end); Temporal server build $(tail -n 1 "$install_log" | sed 's/^built in //'), waited for $((t3 - t2b)) s after schemathesis; cluster suite $((t4 - t3)) s; total $((t4 - t0)) s"
tally "$results_dir/main.json" "$results_dir/cluster.json"
