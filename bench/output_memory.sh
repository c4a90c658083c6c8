#!/usr/bin/env bash
# Peak memory of the real binary while a command prints 200 MB: runs aci in
# pipe mode against a tiny scripted OpenAI server and reports the maximum
# resident set size from /usr/bin/time -v (apt-get install time). An
# optional argument names another replies file, e.g. a baseline run.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o /tmp/aci-bench .
go build -o /tmp/aci-fakemodel ./bench/fakemodel
replies=${1:-$PWD/bench/output_memory.replies}
/tmp/aci-fakemodel -addr 127.0.0.1:18934 -reply-file "$replies" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
sleep 1
work=$(mktemp -d)
cd "$work"
OPENAI_BASE_URL=http://127.0.0.1:18934/v1 OPENAI_API_KEY= ACI_STREAM=0 \
  /usr/bin/time -v /tmp/aci-bench -p "print 200 MB" 2> time.txt >/dev/null || true
grep -E "Maximum resident set size|Elapsed" time.txt
