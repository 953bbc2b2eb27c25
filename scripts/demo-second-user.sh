#!/usr/bin/env bash
# End-to-end check of "a second user while the demo runs" (README): starts `npm run demo -- --keep`
# in its own process group, runs the commands the demo prints for a second user exactly as printed
# (user:create against the demo's embedded database, linking the emulator's GitHub account and
# repository with curl, a scrap), then that user's TIL and its commit to the GitHub emulator;
# stops the demo with SIGINT to its process group (as Ctrl-C would) and checks that none of its
# processes is left.
# Bounded: DEADLINE_SECONDS (default 900) for the whole run; whatever is still running at the end
# is killed. The demo gets an embedded database of its own in a temp dir (EMBEDDED_PG_DIR), so
# runs do not see each other's users and the user's .data/pglite is left alone.
# Usage: bash scripts/demo-second-user.sh [demo arguments, default --limit 6]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEADLINE=$(( $(date +%s) + ${DEADLINE_SECONDS:-900} ))
LOG=$(mktemp -t demo-second-user.XXXXXX.log)
PGDIR=$(mktemp -d -t demo-second-user-pglite.XXXXXX)
DEMO_PID=
[[ $# -gt 0 ]] || set -- --limit 6
unset DATABASE_URL TEMPORAL_ADDRESS
export EMBEDDED_PG_DIR=$PGDIR

say() { printf '[second-user] %s\n' "$*"; }
left() { echo $(( DEADLINE - $(date +%s) )); }
group_alive() { [[ -n "$DEMO_PID" ]] && pgrep -g "$DEMO_PID" >/dev/null 2>&1; }
# The demo's Temporal dev server runs in a process group of its own (with a watchdog that ends it
# when the demo dies); it is the one using this checkout's .data/temporal.sqlite.
temporal_pids() { pgrep -f -- "--db-filename $ROOT/.data/temporal.sqlite" || true; }
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if group_alive; then
    say "killing what is left of the demo (process group $DEMO_PID)"
    kill -KILL -- "-$DEMO_PID" 2>/dev/null || true
  fi
  for _ in $(seq 15); do [[ -z "$(temporal_pids)" ]] && break; sleep 1; done # the watchdog's turn
  local t; t=$(temporal_pids)
  if [[ -n "$t" ]]; then say "killing the demo's Temporal server ($t)"; kill -KILL $t 2>/dev/null || true; fi
  rm -rf "$PGDIR"
  say "demo output: $LOG"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
fail() { say "FAILED: $*"; tail -n 30 "$LOG" | sed 's/^/    /'; exit 1; }
json() { node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];if(v===undefined)process.exit(1);console.log(typeof v==="string"?v:JSON.stringify(v))})' "$1"; }

# 1. The demo, in a process group of its own (job control: its group id is its pid), so SIGINT
# reaches all of it as Ctrl-C in a terminal would.
say "starting npm run demo -- --keep $* (log $LOG)"
set -m
npm run demo -- --keep "$@" >"$LOG" 2>&1 </dev/null &
DEMO_PID=$!
set +m
until grep -q '^jobs: ' "$LOG"; do
  kill -0 "$DEMO_PID" 2>/dev/null || fail "the demo exited before it was ready"
  (( $(left) > 0 )) || fail "the demo was not ready in time"
  sleep 2
done
grep '^jobs: ' "$LOG" | sed 's/^/[second-user] demo: /'

# 2. The commands the demo printed, run as printed.
BLOCK=$(awk '/^Try a second user/{f=1;next} f&&/^$/{exit} f' "$LOG")
[[ -n "$BLOCK" ]] || fail "the demo printed no commands for a second user"
# printed PATTERN: CMD = the first printed command containing PATTERN
printed() { local l; l=$(grep -m1 -F -- "$1" <<<"$BLOCK") || fail "no printed command with $1"; CMD=${l#  }; }
printed 'export API='; eval "$CMD"
say "API $API, database $DATABASE_URL"
printed 'TOKEN2=$(npm run -s user:create'; eval "$CMD"
[[ "$TOKEN2" == djt_* ]] || fail "user:create printed no token: $TOKEN2"
say "user:create against the running demo: token ${TOKEN2:0:8}…"
printed '/github/account"'; ACCOUNT=$(eval "$CMD")
say "PUT /github/account → $ACCOUNT"
[[ "$(json login <<<"$ACCOUNT")" == alice ]] || fail "GitHub account not linked: $ACCOUNT"
printed '/github/repository"'; REPO=$(eval "$CMD")
say "PUT /github/repository → $REPO"
[[ "$(json owner <<<"$REPO")" == alice ]] || fail "GitHub repository not linked: $REPO"
printed '/scraps"'; SCRAP=$(eval "$CMD")
say "POST /scraps → $SCRAP"
JOB=$(json analysisJobId <<<"$SCRAP") || fail "no scrap accepted: $SCRAP"

# 3. Wait for the card, then today's TIL and its commit (the printed hints, with the ids filled in).
H="authorization: Bearer $TOKEN2"
wait_job() {
  local status=
  [[ -n "$1" ]] || fail "no $2 job was accepted"
  while (( $(left) > 0 )); do
    status=$(curl -s "$API/async-jobs/$1" -H "$H" | json status || true)
    [[ "$status" == COMPLETED ]] && return 0
    [[ "$status" == FAILED ]] && fail "$2 job $1 FAILED: $(curl -s "$API/async-jobs/$1" -H "$H")"
    sleep 1
  done
  fail "$2 job $1 did not finish in time (last status $status)"
}
wait_job "$JOB" CARD_ANALYSIS
say "card: $(curl -s "$API/cards/$(json scrapId <<<"$SCRAP")" -H "$H" | json title)"
TODAY=$(date -u +%F)
TIL=$(curl -s -X POST "$API/til" -H "$H" -H 'content-type: application/json' -d "{\"targetDate\":\"$TODAY\"}")
say "POST /til → $TIL"
wait_job "$(json jobId <<<"$TIL" || true)" TIL_GENERATION
SUMMARY=$(json summaryId <<<"$TIL")
COMMIT=$(curl -s -X POST "$API/til/$SUMMARY/github-commits" -H "$H")
say "POST /til/$SUMMARY/github-commits → $COMMIT"
wait_job "$(json jobId <<<"$COMMIT" || true)" TIL_GITHUB_COMMIT
URL=$(curl -s "$API/til/$SUMMARY/github-commits" -H "$H" | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).commits.find((c)=>c.status==="COMPLETED")?.htmlUrl??""))')
[[ "$URL" == */alice/til/commit/* ]] || fail "no completed commit to alice/til: $URL"
say "committed to the emulator's alice/til: $URL"
# the first user still works alongside
DEMO_TOKEN=$(sed -n 's/^  demo user token:  //p' "$LOG")
[[ "$(curl -s -o /dev/null -w '%{http_code}' "$API/github/account" -H "authorization: Bearer $DEMO_TOKEN")" == 200 ]] || fail "the demo user lost its GitHub link"

# 4. Ctrl-C, then nothing may be left.
say "stopping the demo with SIGINT"
kill -INT -- "-$DEMO_PID"
STOP_BY=$(( $(date +%s) + 60 ))
while group_alive && (( $(date +%s) < STOP_BY )); do sleep 1; done
group_alive && fail "demo processes still running 60 s after SIGINT: $(pgrep -g "$DEMO_PID" -a)"
[[ -z "$(temporal_pids)" ]] || fail "the demo's Temporal server is still running after SIGINT: $(temporal_pids)"
wait "$DEMO_PID" && rc=0 || rc=$?
# npm itself answers SIGINT with 130 whatever its script returned; the demo's own last line says it shut down.
(( rc == 0 || rc == 130 )) || fail "the demo exited with $rc"
grep -q '^stopped: ' "$LOG" || fail "the demo did not shut down cleanly"
DEMO_PID=
say "OK: second user created, GitHub linked, TIL committed; demo stopped cleanly, no process left"
