#!/usr/bin/env bash
# The first `go test` of a fresh session: runs `aci -p` RUNS times (default
# 5) against the scripted model of bench/first_gotest.replies (a bash
# window running go test -count=1 on two packages of a copy of this
# repository, contained as usual, then an answer), each run a new aci and
# so a new session's sandbox, with the person's own Go build and module
# caches (GOCACHE, GOMODCACHE as `go env` says). Prints the median wall
# and CPU time (user+sys, children included). ACI_BIN_BASE, when set, is
# measured too (a build of main, for the cost of layering the caches).
#
#   bench/first_gotest.sh
#   ACI_BIN_BASE=/path/to/main-aci bench/first_gotest.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
export GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOTOOLCHAIN=local GOFLAGS=-mod=mod
. bench/fakemodel_start.sh /tmp/aci-first-gotest-bench "$PWD/bench/first_gotest.replies"
mkdir -p "$work/home/.config/aci" "$work/proj"
git archive HEAD | tar -x -C "$work/proj"
export HOME=$work/home XDG_STATE_HOME=$work/home/.state XDG_CONFIG_HOME=$work/home/.config
export OPENAI_BASE_URL=$base OPENAI_API_KEY=bench-key OPENAI_MODEL=bench-model
cd "$work/proj"
(go test -count=1 ./internal/dirs ./tools/sandbox/netfwd >/dev/null) # the person's cache holds what they built
once() { # label binary: one run, appended to runs.label
  /usr/bin/time -f "%e %U %S" -o "$work/t" "$2" --yes -p "test it" >"$work/out" 2>"$work/err"
  grep -q "ran them" "$work/out" || { echo "unexpected answer: $(cat "$work/out" "$work/err")" >&2; exit 1; }
  [ -e tests-ok ] || { echo "go test failed in the sandbox ($1)" >&2; exit 1; }
  rm -f tests-ok
  awk '{printf "%d %d\n", $1*1000000, ($2+$3)*1000000}' "$work/t" >>"$work/runs.$1"
}
report() { # label
  sort -n "$work/runs.$1" | awk '{w[NR]=$1} END{printf "%.1f", w[int((NR+1)/2)]/1000}' >"$work/w.$1"
  sort -k2 -n "$work/runs.$1" | awk '{c[NR]=$2} END{printf "%.1f", c[int((NR+1)/2)]/1000}' >"$work/c.$1"
  printf "%-6s wall median %8s ms, CPU (user+sys, with children) median %8s ms\n" "$1" "$(cat "$work/w.$1")" "$(cat "$work/c.$1")"
}
# Interleaved, so that a busy machine's drift weighs on both alike.
for _ in $(seq "$runs"); do
  [ -n "${ACI_BIN_BASE:-}" ] && once base "$ACI_BIN_BASE"
  once this "$bin"
done
[ -n "${ACI_BIN_BASE:-}" ] && report base
report this
