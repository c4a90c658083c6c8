#!/usr/bin/env bash
# A command that prints 100 MB in a session of `aci serve`, first with no
# client, then with a client following the session's events (curl reading
# the SSE stream as fast as it comes), then with a stalled client (one that
# connects and stops reading; MODES picks some): the command's own wall time (from
# its tool_result, "exit 0, N s") and the server's memory growth (VmHWM at
# the end minus VmRSS before the turn). Each run is a fresh server. Live
# output must cost a followed command under 5% and the server under 20 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o /tmp/aci-bench .
go build -o /tmp/aci-fakemodel ./bench/fakemodel
replies=$PWD/bench/live_output.replies
runs=${RUNS:-3}

one() { # $1: "client", "stalled" or "none"; prints "wall_s growth_mb events_bytes"
  local work state out urlfile
  work=$(mktemp -d) state=$(mktemp -d) urlfile=$(mktemp)
  /tmp/aci-fakemodel -loop -reply-file "$replies" >"$urlfile" &
  local model=$!
  for _ in $(seq 50); do [ -s "$urlfile" ] && break; sleep 0.1; done
  out="$work/stdout"
  (cd "$work" && OPENAI_BASE_URL=$(head -1 "$urlfile") OPENAI_API_KEY= ACI_STREAM=0 XDG_STATE_HOME="$state" \
    exec /tmp/aci-bench serve --addr 127.0.0.1:0 >"$out" 2>/dev/null) &
  local pid=$!
  for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.05; done
  local url base token id
  url=$(head -1 "$out" | cut -d' ' -f3)
  base=${url%%/?token=*}; base=${base%%/#token=*}
  token=${url##*token=}
  auth="Authorization: Bearer $token"
  id=$(curl -sf -H "$auth" -d '{}' "$base/api/sessions" | sed 's/.*"id":"\([^"]*\)".*/\1/')
  local before follower=""
  before=$(awk '/^VmRSS:/ {print $2}' /proc/$pid/status)
  if [ "$1" = stalled ]; then
    # curl fills the pipe nobody reads, then stops reading the socket.
    curl -sfN -H "$auth" -H "Last-Event-ID: 0" "$base/api/sessions/$id/events" | sleep 3600 &
  else
    curl -sfN -H "$auth" -H "Last-Event-ID: 0" "$base/api/sessions/$id/events" >"$work/events" &
  fi
  follower=$!
  if [ "$1" = none ]; then kill $follower; wait $follower 2>/dev/null || true; follower=""; fi
  sleep 0.2
  curl -sf -H "$auth" -d '{"text":"print 100 MB"}' "$base/api/sessions/$id/messages" >/dev/null
  until curl -sf -H "$auth" "$base/api/sessions/$id" | grep -q '"state":"idle".*"answer":"printed"\|"answer":"printed".*"state":"idle"'; do sleep 0.2; done
  local hwm wall bytes=0
  hwm=$(awk '/^VmHWM:/ {print $2}' /proc/$pid/status)
  [ -n "$follower" ] && { sleep 0.3; kill $follower; wait $follower 2>/dev/null || true; bytes=$(stat -c %s "$work/events" 2>/dev/null || echo 0); }
  wall=$(curl -sf -H "$auth" "$base/api/sessions/$id/windows/bash_1" | grep -o 'exit 0, [0-9.]*[a-z]*' | head -1 | sed 's/exit 0, //')
  kill $pid $model 2>/dev/null; wait $pid $model 2>/dev/null || true
  rm -rf "$work" "$state" "$urlfile"
  echo "$wall $(( (hwm - before) / 1024 )) $bytes"
}

for mode in ${MODES:-none client stalled}; do
  for i in $(seq "$runs"); do
    read -r wall growth bytes < <(one "$mode")
    printf "%-6s run %d: command wall %s, server memory growth %s MB, events read %s bytes\n" "$mode" "$i" "$wall" "$growth" "$bytes"
  done
done
