#!/usr/bin/env bash
# Installs the Temporal server and its SQL schema tool into .tools/temporal-server/bin from the Go
# module proxy (`go install`, Go's module and build caches make a second install fast), pinned:
# the server module needs Go >= 1.26.10, so the toolchain is pinned too (GOTOOLCHAIN downloads it
# through the same proxy). Idempotent: nothing is done when the pinned binaries are in place.
# Prints nothing on success (unless CLUSTER_INSTALL_VERBOSE=1); on failure the step's output.
# Needs `go` (any version >= 1.21, which can fetch a toolchain) on PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
TEMPORAL_SERVER_VERSION=v1.32.2
GO_TOOLCHAIN=go1.27.3
dest="$root/.tools/temporal-server"
stamp="$dest/.installed"
want="server@$TEMPORAL_SERVER_VERSION $GO_TOOLCHAIN"

if [ -x "$dest/bin/server" ] && [ -x "$dest/bin/sql" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
command -v go >/dev/null || { echo "cluster install: 'go' is not on PATH (Go >= 1.21 is needed to build the Temporal server)" >&2; exit 1; }
mkdir -p "$dest/bin"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for pkg in cmd/server cmd/tools/sql; do
  t0=$(date +%s)
  if ! GOTOOLCHAIN="$GO_TOOLCHAIN" GOBIN="$dest/bin" go install "go.temporal.io/server/$pkg@$TEMPORAL_SERVER_VERSION" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "cluster install: go install go.temporal.io/server/$pkg@$TEMPORAL_SERVER_VERSION failed" >&2
    exit 1
  fi
  [ "${CLUSTER_INSTALL_VERBOSE:-0}" = 1 ] && echo "cluster install: $pkg built in $(( $(date +%s) - t0 )) s" >&2
done
# Schemas and config templates ship in the module (read-only in Go's module cache).
moddir="$(GOTOOLCHAIN="$GO_TOOLCHAIN" go env GOMODCACHE)/go.temporal.io/server@$TEMPORAL_SERVER_VERSION"
[ -d "$moddir/schema/postgresql/v12/temporal/versioned" ] || { echo "cluster install: no schema in $moddir" >&2; exit 1; }
printf '%s' "$moddir" >"$dest/module-dir"
printf '%s' "$want" >"$stamp"
