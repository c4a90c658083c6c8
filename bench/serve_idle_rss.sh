#!/usr/bin/env bash
# Resident memory of an idle `aci serve`: starts the real binary on a free
# loopback port, reads VmRSS from /proc after start, then again after a
# session was created and listed, and once more after a few seconds idle.
# VmRSS is split into what the process owns (RssAnon: heap, stacks) and
# the executable's pages it maps (RssFile: clean page cache, shared and
# reclaimable). The binary's cached pages are dropped first (dd nocache):
# a page cache filled by `go build` may hold it in large folios, which the
# kernel then maps whole and counts in full.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o /tmp/aci-bench .
dd if=/tmp/aci-bench iflag=nocache count=0 status=none
work=$(mktemp -d)
state=$(mktemp -d)
out="$work/stdout"
cd "$work"
# A base URL that answers nothing: no model is needed to stay idle.
OPENAI_BASE_URL=http://127.0.0.1:9/v1 OPENAI_API_KEY=unused XDG_STATE_HOME="$state" \
  /tmp/aci-bench serve --addr 127.0.0.1:0 >"$out" 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$work" "$state"' EXIT
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.05; done
url=$(head -1 "$out" | cut -d' ' -f3)
base=${url%%/?token=*}
token=${url##*token=}
rss() {
  awk '/^(VmRSS|RssAnon|RssFile):/ {v[$1]=$2/1024}
       END {printf "VmRSS %.1f MB (RssAnon %.1f MB, RssFile %.1f MB)\n", v["VmRSS:"], v["RssAnon:"], v["RssFile:"]}' "/proc/$pid/status"
}
echo "after start:            $(rss)"
curl -sf -H "Authorization: Bearer $token" -d '{}' "$base/api/sessions" >/dev/null
curl -sf -H "Authorization: Bearer $token" "$base/api/sessions" >/dev/null
echo "with one session:       $(rss)"
sleep 3
echo "idle 3 s later:         $(rss)"
