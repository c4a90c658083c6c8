#!/usr/bin/env bash
# What hooks cost per action: runs `aci -p` RUNS times (default 11) against
# the scripted model of bench/hooks.replies (one batch of 20 bash `true`
# calls, contained as usual, then an answer) with no hooks, with a plain sh
# PreToolUse hook on Bash (`exit 0`) and with a python one (the
# command validator of docs/modes.md), and prints the median wall time and CPU time (user+sys, children
# included: the hooks and the contained commands) of each and the
# difference per action. On a busy machine the CPU figures are the steadier. ACI_BIN_BASE, when set, is measured
# without hooks too (a build without hooks support, for what support costs
# a hook-free run).
#
#   bench/hooks.sh
#   ACI_BIN=/path/to/aci ACI_BIN_BASE=/path/to/main-aci bench/hooks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-11}
. bench/fakemodel_start.sh /tmp/aci-hooks-bench "$PWD/bench/hooks.replies"
mkdir -p "$work/home/.config/aci" "$work/proj"
cat >"$work/validate.py" <<'PY'
#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
if "rm -rf" in data.get("tool_input", {}).get("command", ""):
    print("Blocked: rm -rf", file=sys.stderr)
    sys.exit(2)
PY
chmod +x "$work/validate.py"
export HOME=$work/home XDG_STATE_HOME=$work/home/.state XDG_CONFIG_HOME=$work/home/.config
export OPENAI_BASE_URL=$base OPENAI_API_KEY=bench-key OPENAI_MODEL=bench-model
cd "$work/proj"
settings=$XDG_CONFIG_HOME/aci/settings.json
measure() { # label binary hook-command
  if [ -n "$3" ]; then
    printf '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "%s"}]}]}}\n' "$3" >"$settings"
  else
    rm -f "$settings"
  fi
  "$2" -p "run them" >/dev/null 2>&1 # warm
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$work/t" "$2" -p "run them" >"$work/out" 2>/dev/null
    grep -q "ran them" "$work/out" || { echo "unexpected answer: $(cat "$work/out")" >&2; exit 1; }
    awk '{printf "%d %d\n", $1*1000000, ($2+$3)*1000000}' "$work/t"
  done >"$work/runs.$1"
  sort -n "$work/runs.$1" | awk '{w[NR]=$1} END{printf "%.1f", w[int((NR+1)/2)]/1000}' >"$work/w.$1"
  sort -k2 -n "$work/runs.$1" | awk '{c[NR]=$2} END{printf "%.1f", c[int((NR+1)/2)]/1000}' >"$work/c.$1"
  printf "%-8s wall median %8s ms, CPU (user+sys, with children) median %8s ms\n" "$1" "$(cat "$work/w.$1")" "$(cat "$work/c.$1")"
}
if [ -n "${ACI_BIN_BASE:-}" ]; then
  measure base "$ACI_BIN_BASE" ""
fi
measure none "$bin" ""
measure sh "$bin" "exit 0"
measure python "$bin" "$work/validate.py"
per() { # wall and CPU difference per action
  awk -v a="$(cat "$work/w.$1")" -v b="$(cat "$work/w.$2")" -v c="$(cat "$work/c.$1")" -v d="$(cat "$work/c.$2")" \
    'BEGIN{printf "%.2f ms wall, %.2f ms CPU", (a-b)/20, (c-d)/20}'
}
[ -n "${ACI_BIN_BASE:-}" ] && echo "hooks support, no hooks: $(per none base) per action"
echo "sh hook (exit 0):        $(per sh none) per action"
echo "python validator hook:   $(per python none) per action"
