#!/usr/bin/env bash
# Background sessions: the resident memory of a workspace's idle
# background server (aci --bg, after its task ended), and how long
# `aci ps` takes with 100 finished background sessions (real ones: 100
# aci --bg tasks answered by the scripted model, each its own transcript).
# Usage: bench/bg.sh [N]  (N sessions, default 100)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100}
go build -o /tmp/aci-bench .
go build -o /tmp/aci-fakemodel ./bench/fakemodel
work=$(mktemp -d)
state=$(mktemp -d)
replies=$(mktemp)
urlfile=$(mktemp)
echo "the answer is 42" >"$replies"
/tmp/aci-fakemodel -loop -reply-file "$replies" >"$urlfile" &
model=$!
cleanup() {
  pid=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' "$state"/aci/bg/*/server.json 2>/dev/null || true)
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  kill $model 2>/dev/null || true
  rm -rf "$work" "$state" "$replies" "$urlfile"
}
trap cleanup EXIT
for _ in $(seq 50); do [ -s "$urlfile" ] && break; sleep 0.1; done
export OPENAI_BASE_URL=$(head -1 "$urlfile") OPENAI_API_KEY=unused OPENAI_MODEL=test-model XDG_STATE_HOME="$state"
cd "$work"
/tmp/aci-bench --bg "what is the answer" >/dev/null 2>&1
until /tmp/aci-bench ps 2>/dev/null | grep -q finished; do sleep 0.1; done
pid=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' "$state"/aci/bg/*/server.json)
sleep 3
awk '/^(VmRSS|RssAnon|RssFile):/ {v[$1]=$2/1024}
     END {printf "idle background server (1 finished session): VmRSS %.1f MB (RssAnon %.1f MB, RssFile %.1f MB)\n", v["VmRSS:"], v["RssAnon:"], v["RssFile:"]}' "/proc/$pid/status"
for _ in $(seq 2 "$n"); do /tmp/aci-bench --bg "what is the answer" >/dev/null 2>&1; done
until [ "$(/tmp/aci-bench ps 2>/dev/null | grep -c finished)" -ge "$n" ]; do sleep 0.2; done
awk '/^(VmRSS|RssAnon|RssFile):/ {v[$1]=$2/1024}
     END {printf "idle background server after %s sessions: VmRSS %.1f MB (RssAnon %.1f MB, RssFile %.1f MB)\n", "'"$n"'", v["VmRSS:"], v["RssAnon:"], v["RssFile:"]}' "/proc/$pid/status"
runs=20
start=$(date +%s%N)
for _ in $(seq $runs); do /tmp/aci-bench --version >/dev/null; done
end=$(date +%s%N)
echo "baseline, aci --version: $(( (end - start) / runs / 1000000 )) ms per run (mean of $runs)"
start=$(date +%s%N)
for _ in $(seq $runs); do /tmp/aci-bench ps >/dev/null; done
end=$(date +%s%N)
echo "aci ps with $n finished sessions (server running): $(( (end - start) / runs / 1000000 )) ms per run (mean of $runs)"
kill "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
start=$(date +%s%N)
for _ in $(seq $runs); do /tmp/aci-bench ps >/dev/null; done
end=$(date +%s%N)
echo "aci ps with $n finished sessions (server stopped): $(( (end - start) / runs / 1000000 )) ms per run (mean of $runs)"
