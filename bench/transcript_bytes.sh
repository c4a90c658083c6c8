#!/usr/bin/env bash
# Transcript bytes a turn, and the answer's text records: runs TURNS turns
# (default 10) of the real binary against the scripted model (bench/fakemodel
# looping over bench/tryout.replies: a file opened, a command run, an answer
# of a few lines, streamed in pieces as a provider streams it), the first
# with `aci -p`, each next one with `aci --resume -p`, and prints the
# transcript's size divided by the turns, and how many text event records it
# holds.
#
#   bench/transcript_bytes.sh             # build from this tree and measure
#   ACI_BIN=/path/to/aci bench/transcript_bytes.sh   # measure another build
set -euo pipefail
cd "$(dirname "$0")/.."
turns=${TURNS:-10}
. bench/fakemodel_start.sh /tmp/aci-transcript-bench "$PWD/bench/tryout.replies"
mkdir -p "$work/home" "$work/proj"
echo "# proj" >"$work/proj/README.md"
cd "$work/proj"
export HOME=$work/home XDG_STATE_HOME=$work/home/.state XDG_CONFIG_HOME=$work/home/.config
export OPENAI_BASE_URL=$base OPENAI_API_KEY=bench-key OPENAI_MODEL=bench-model ACI_SANDBOX=off
"$bin" -p "What is this project?" >/dev/null
for _ in $(seq 2 "$turns"); do
  "$bin" --resume -p "What is this project?" >/dev/null
done
file=$(ls "$XDG_STATE_HOME"/aci/sessions/*.jsonl)
bytes=$(wc -c <"$file")
texts=$(grep -c '"event":{"type":"text"' "$file" || true)
echo "turns: $turns  transcript: $bytes bytes  per turn: $((bytes / turns)) bytes  text records: $texts"
