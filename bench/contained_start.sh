#!/usr/bin/env bash
# What containment adds to starting one command, broken down (see
# BenchmarkContainedStart in tools/shell and BenchmarkBashWindowRun in
# windows): uncontained; bwrap alone; + the network link and its first
# step; + the resource limits; + the protected files' binds (the whole
# one-shot path); the path a bash window takes; and end to end through a
# bash window, contained against uncontained.
#
# N=30 commands per row by default. As root it runs with real-time priority
# (chrt -f 10) to leave out the wait for a core on a busy machine; the
# cpu-ms/op column (CPU time of aci and its children per command) is the
# figure a busy machine inflates least.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${N:-30}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go test -c -o "$out/shell.test" ./tools/shell
go test -c -o "$out/windows.test" ./windows
rt=()
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null; then rt=(chrt -f 10); fi
(cd tools/shell && "${rt[@]}" "$out/shell.test" -test.run '^$' -test.bench 'ContainedStart' -test.benchtime "${n}x")
(cd windows && "${rt[@]}" "$out/windows.test" -test.run '^$' -test.bench 'BashWindowRun' -test.benchtime "${n}x")
