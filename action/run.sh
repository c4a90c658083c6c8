#!/usr/bin/env bash
# The GitHub Action's agent step (action.yml): runs aci on the task with an
# environment built from an allow-list (no GitHub token, no secret but the
# model key), then writes the answer, the checked JSON output, the cost and
# the transcript's path to $GITHUB_OUTPUT. Exits with aci's exit code.
set -uo pipefail

fail() { echo "aci action: $*" >&2; exit 2; }

: "${ACI_BIN:?ACI_BIN names the aci binary}"
out_file="${GITHUB_OUTPUT:-/dev/null}"
work="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/aci-action"
mkdir -p "$work/config/aci" "$work/state" || fail "cannot make $work"

# The task: prompt or prompt-file, exactly one.
prompt="${INPUT_PROMPT:-}"
if [ -n "${INPUT_PROMPT_FILE:-}" ]; then
  [ -z "$prompt" ] || fail "give prompt or prompt-file, not both"
  [ -f "$INPUT_PROMPT_FILE" ] || fail "prompt-file $INPUT_PROMPT_FILE does not exist"
  prompt=$(cat "$INPUT_PROMPT_FILE")
fi
[ -n "$prompt" ] || fail "no task: set the prompt or prompt-file input"

# actions/checkout keeps its token in .git/config unless told not to; the
# agent's commands could read it there.
if git config --local --get-regexp '^http\..*\.extraheader$' >/dev/null 2>&1; then
  fail "the checkout left a GitHub token in .git/config: check out with 'persist-credentials: false'"
fi

case "${INPUT_PROVIDER:-}" in
  "") base_url="" ;;
  openai) base_url="https://api.openai.com/v1" ;;
  openrouter) base_url="https://openrouter.ai/api/v1" ;;
  anthropic) base_url="https://api.anthropic.com/v1" ;;
  http://*|https://*) base_url="$INPUT_PROVIDER" ;;
  *) fail "provider $INPUT_PROVIDER: use openai, openrouter, anthropic or a base URL" ;;
esac

case "${INPUT_PERMISSION_MODE:-plan}" in
  default|plan|yes) mode="${INPUT_PERMISSION_MODE:-plan}" ;;
  ask) fail "permission-mode ask needs a person to answer; use default, plan or yes" ;;
  *) fail "permission-mode ${INPUT_PERMISSION_MODE}: use default, plan or yes" ;;
esac

case "${INPUT_SANDBOX:-workspace}" in
  workspace|container) sandbox="${INPUT_SANDBOX:-workspace}" ;;
  *) fail "sandbox ${INPUT_SANDBOX}: use workspace or container" ;;
esac

# Rules go in the person's settings of this run (a folder of its own).
lines() { printf '%s\n' "$1" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -v '^$' || true; }
jq -n --arg allow "$(lines "${INPUT_ALLOW_RULES:-}")" --arg deny "$(lines "${INPUT_DENY_RULES:-}")" \
  '{permissions: {allow: ($allow | split("\n") | map(select(. != ""))), deny: ($deny | split("\n") | map(select(. != "")))}}' \
  > "$work/config/aci/settings.json" || fail "cannot write the settings"

args=(-p "$prompt" --output-format json --permission-mode "$mode")
[ -z "${INPUT_MODEL:-}" ] || args+=(--model "$INPUT_MODEL")
if [ -n "${INPUT_OUTPUT_SCHEMA:-}" ]; then
  [ -f "$INPUT_OUTPUT_SCHEMA" ] || fail "output-schema $INPUT_OUTPUT_SCHEMA does not exist"
  args+=(--output-schema "$INPUT_OUTPUT_SCHEMA")
fi
number() { [[ "$2" =~ ^[0-9]+([.][0-9]+)?$ ]] || fail "$1 must be a number, not '$2'"; }
[ -z "${INPUT_MAX_STEPS:-}" ] || { number max-steps "$INPUT_MAX_STEPS"; args+=(--max-steps "$INPUT_MAX_STEPS"); }
[ -z "${INPUT_MAX_TURNS:-}" ] || { number max-turns "$INPUT_MAX_TURNS"; args+=(--max-turns "$INPUT_MAX_TURNS"); }
[ -z "${INPUT_MAX_BUDGET_USD:-}" ] || { number max-budget-usd "$INPUT_MAX_BUDGET_USD"; args+=(--max-budget-usd "$INPUT_MAX_BUDGET_USD"); }

# The environment aci gets: what a build needs, and the model key. Nothing
# else of the job's (GITHUB_TOKEN, other secrets) passes.
envs=(PATH="$PATH" HOME="${HOME:-$work}" LANG="${LANG:-C.UTF-8}" CI=true
  XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" ACI_SANDBOX="$sandbox")
for v in TMPDIR GOPATH GOROOT GOCACHE GOMODCACHE GOTOOLCHAIN GOFLAGS GOPROXY GOPRIVATE GONOSUMDB GONOPROXY; do
  [ -z "${!v:-}" ] || envs+=("$v=${!v}")
done
[ -z "${INPUT_API_KEY:-}" ] || envs+=(OPENAI_API_KEY="$INPUT_API_KEY")
[ -z "$base_url" ] || envs+=(OPENAI_BASE_URL="$base_url")

env -i "${envs[@]}" "$ACI_BIN" "${args[@]}" > "$work/result.json"
code=$?

# One output a name; multi-line values go in a heredoc with a fresh delimiter.
put() {
  local d="aci_$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s<<%s\n%s\n%s\n' "$1" "$d" "$2" "$d" >> "$out_file"
}
if jq -e . "$work/result.json" >/dev/null 2>&1; then
  put answer "$(jq -r '.result // ""' "$work/result.json")"
  put structured-output "$(jq -c 'if has("structured_output") and .structured_output != null then .structured_output else empty end' "$work/result.json")"
  put cost "$(jq -r '.total_cost_usd // "" | tostring' "$work/result.json")"
  put outcome "$(jq -r '.outcome // (if .is_error then "failed" else "answered" end)' "$work/result.json")"
  id=$(jq -r '.session_id // ""' "$work/result.json")
  put session-id "$id"
  if [ -n "$id" ] && [ -f "$work/state/aci/sessions/$id.jsonl" ]; then
    cp "$work/state/aci/sessions/$id.jsonl" "$work/transcript-$id.jsonl"
    put transcript "$work/transcript-$id.jsonl"
  fi
  if [ "$code" -ne 0 ]; then
    echo "aci action: aci exited $code: $(jq -r '.error // ""' "$work/result.json")" >&2
  fi
else
  echo "aci action: aci exited $code without a result" >&2
  put outcome failed
fi
exit "$code"
