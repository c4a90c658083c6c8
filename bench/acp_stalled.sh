#!/usr/bin/env bash
# An editor that stops reading `aci acp`'s stdout while a command prints
# 100 MB: how long the turn takes to send its next model request (the
# fake model's log of requests), and the peak memory of aci (VmHWM) by
# the time the editor reads again after STALL seconds (default 10). An
# optional argument names another checkout to measure (a baseline).
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
stall=${STALL:-10}
here=$(cd "$(dirname "$0")" && pwd)
(cd "$src" && go build -o /tmp/aci-bench-acp .)
(cd "$here/.." && go build -o /tmp/aci-fakemodel-acp ./bench/fakemodel) # it logs each request
work=$(mktemp -d) state=$(mktemp -d)
trap 'kill $model $aci 2>/dev/null || true; rm -rf "$work" "$state"' EXIT
/tmp/aci-fakemodel-acp -log-requests -reply-file "$here/live_output.replies" >"$work/url" 2>"$work/model.log" &
model=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
mkfifo "$work/in" "$work/out"
(cd "$work" && OPENAI_BASE_URL=$(head -1 "$work/url") OPENAI_API_KEY= ACI_STREAM=0 XDG_STATE_HOME="$state" \
  exec /tmp/aci-bench-acp acp <"$work/in" >"$work/out" 2>/dev/null) &
aci=$!
exec 3>"$work/in"
exec 4<"$work/out"
say() { printf '%s\n' "$1" >&3; }
say '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}'
read -r _ <&4
say '{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"'"$work"'","mcpServers":[]}}'
read -r line <&4
sid=$(printf '%s' "$line" | sed 's/.*"sessionId":"\([^"]*\)".*/\1/')
start=$(date +%s.%N)
say '{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"'"$sid"'","prompt":[{"type":"text","text":"print 100 MB"}]}}'
# The editor reads nothing for $stall seconds.
second=""
for _ in $(seq $((stall * 10))); do
  if [ -z "$second" ] && [ "$(grep -c 'request ' "$work/model.log" || true)" -ge 2 ]; then
    second=$(echo "$(date +%s.%N) - $start" | bc)
  fi
  sleep 0.1
done
hwm=$(awk '/^VmHWM:/ {print $2}' /proc/$aci/status)
# Reading again: everything up to the prompt's answer.
got=0
while read -r line <&4; do
  got=$((got + ${#line}))
  case $line in *'"id":3,"result"'*|*'"id":3,'*'"result"'*) break ;; esac
done
hwm=$(awk '/^VmHWM:/ {print $2}' /proc/$aci/status)
echo "next model request after: ${second:-not within ${stall}s} s; aci peak memory: $((hwm / 1024)) MB; read afterwards: $got bytes"
