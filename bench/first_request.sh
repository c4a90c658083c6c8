#!/usr/bin/env bash
# Size of the first request of a one-question run of the real binary
# (`aci -p "What is 2+2?"` against bench/fakemodel), bare and with every
# feature configured: a project skill, a custom command, an MCP server in the
# person's mcp.json and a PreToolUse hook. Prints each body's bytes less the
# workspace path (which varies with the temp folder), and with -v the system
# message and the launcher of the configured run.
#
#   bench/first_request.sh
#   ACI_BIN=/path/to/aci bench/first_request.sh -v
set -euo pipefail
cd "$(dirname "$0")/.."
verbose=${1:-}
first=$(mktemp)
export FAKEMODEL_ARGS="-save-first $first"
. bench/fakemodel_start.sh /tmp/aci-first-request-bench "$PWD/bench/startup.replies"
trap 'kill $server 2>/dev/null; rm -rf "$work" "$urlfile" "$first"' EXIT
mkdir -p "$work/home" "$work/proj"
export HOME=$work/home XDG_STATE_HOME=$work/home/.state XDG_CONFIG_HOME=$work/home/.config
export OPENAI_BASE_URL=$base OPENAI_API_KEY=bench-key OPENAI_MODEL=bench-model
cd "$work/proj"
measure() { # label
  rm -f "$first"
  "$bin" -p "What is 2+2?" >/dev/null
  # The fake model counts requests from its start: restart numbering by
  # asking it nothing else; the file holds the first body it saw.
  echo "$1: $(( $(wc -c <"$first") - ${#PWD} )) bytes"
}
# The fake model saves only its first request: one server per measurement.
measure bare
kill $server; wait $server 2>/dev/null || true
/tmp/aci-fakemodel -loop -save-first "$first" -reply-file "$OLDPWD/bench/startup.replies" >"$urlfile" &
server=$!
: >"$urlfile"
for _ in $(seq 50); do [ -s "$urlfile" ] && break; sleep 0.1; done
export OPENAI_BASE_URL=$(head -1 "$urlfile")
mkdir -p .aci/skills/pdf-forms .aci/commands "$XDG_CONFIG_HOME/aci"
printf -- '---\nname: pdf-forms\ndescription: Fill in and read PDF forms, extract their fields and text\n---\n# PDF forms\nUse pdftk.\n' >.aci/skills/pdf-forms/SKILL.md
printf -- '---\ndescription: Fix a GitHub issue\n---\nFix issue $ARGUMENTS.\n' >.aci/commands/fix-issue.md
printf '{"mcpServers": {"docs": {"command": "docs-mcp-server", "args": ["stdio"]}}}\n' >"$XDG_CONFIG_HOME/aci/mcp.json"
printf '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0"}]}]}}\n' >"$XDG_CONFIG_HOME/aci/settings.json"
measure "every feature (skill, command, MCP server, hook)"
if [ "$verbose" = -v ]; then
  python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); [print("=== "+m["role"]+"\n"+(m["content"] if isinstance(m["content"],str) else json.dumps(m["content"]))) for m in b["messages"]]' "$first"
fi
