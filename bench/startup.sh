#!/usr/bin/env bash
# Start-up cost of the real binary for a one-request answer: runs
# `aci -p "What is 2+2?"` RUNS times (default 21) against a scripted
# OpenAI-compatible server on loopback (bench/fakemodel, which serves
# internal/fakeai) and prints the median and best wall time and the median
# peak resident set size. Also prints the package initialisation total that
# GODEBUG=inittrace=1 reports, and what it allocates. Builds as the
# README's install line does.
# Needs /usr/bin/time (apt-get install time).
#
#   bench/startup.sh            # build from this tree and measure
#   ACI_BIN=/path/to/aci bench/startup.sh   # measure another build
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-21}
. bench/fakemodel_start.sh /tmp/aci-startup-bench "$PWD/bench/startup.replies"
mkdir -p "$work/home" "$work/proj"
# Run a copy: the linker writes the binary through a memory map, and pages
# cached that way are mapped in 2 MB pieces, which counts most of the file in
# the resident set. A binary copied, installed or read back from disk is
# mapped page by page, as measured here.
cp "$bin" "$work/aci"
bin=$work/aci
cd "$work/proj"
# A fresh home: no configuration, no transcripts from earlier runs.
export HOME=$work/home XDG_STATE_HOME=$work/home/.state XDG_CONFIG_HOME=$work/home/.config
export OPENAI_BASE_URL=$base OPENAI_API_KEY=bench-key OPENAI_MODEL=bench-model
"$bin" -p "What is 2+2?" >/dev/null # warm the page cache
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  /usr/bin/time -f "%M" -o "$work/rss" "$bin" -p "What is 2+2?" >"$work/out"
  end=$(date +%s%N)
  grep -q 4 "$work/out" || { echo "unexpected answer: $(cat "$work/out")" >&2; exit 1; }
  echo "$(( (end - start) / 1000 )) $(tail -1 "$work/rss")"
done >"$work/runs"
sort -n "$work/runs" | awk '{w[NR]=$1} END{m=w[int((NR+1)/2)]; printf "wall: median %.1f ms, best %.1f ms (%d runs)\n", m/1000, w[1]/1000, NR}'
sort -k2 -n "$work/runs" | awk '{r[NR]=$2} END{printf "peak RSS: median %.1f MB, max %.1f MB\n", r[int((NR+1)/2)]/1024, r[NR]/1024}'
for _ in $(seq "$runs"); do
  GODEBUG=inittrace=1 "$bin" --version 2>&1 >/dev/null | awk '/^init /{ms+=$5} END{printf "%.3f\n", ms}'
done | sort -n | awk '{t[NR]=$1} END{printf "package init (inittrace): median %.2f ms, best %.2f ms\n", t[int((NR+1)/2)], t[1]}'
# What init allocates does not depend on how busy the machine is.
GODEBUG=inittrace=1 "$bin" --version 2>&1 >/dev/null | awk '/^init /{b+=$8; a+=$10} END{printf "package init allocates: %.0f KB in %d allocations\n", b/1024, a}'
