#!/usr/bin/env bash
# What containment adds to a command. First in pairs
# (BenchmarkContainedOverBare in tools/shell): each iteration runs `true`
# bare (no sandbox, as with ACI_SANDBOX=off) and contained (a bash
# window's path) in turn, in the same workspace; it prints the median of
# each and of the pairs' differences (over-ms), for a command of a session
# under way (each), for the first command of a new shell and Sandbox
# made half a second before (first), and for one run as soon as they are
# made (first-at-once), in a fresh workspace and in a git repository of 5,000 folders
# (internal/benchws). Then the same broken down (BenchmarkContainedStart
# in tools/shell, BenchmarkBashWindowRun in windows): a bare shell;
# uncontained; contained (the session's sandbox); the first command of a
# new shell and Sandbox (first-*); bwrap alone; + the network link and its
# first step; + the resource limits; + the protected files' binds (the
# whole one-shot path); and end to end through a bash window, contained
# against uncontained.
#
# N=30 commands per row by default. As root it runs with real-time priority
# (chrt -f 10) to leave out the wait for a core on a busy machine; the
# cpu-ms/op column (CPU time of aci and its children per command) is the
# figure a busy machine inflates least. BENCH narrows the rows (a -bench
# pattern for every benchmark, e.g. BENCH=5000dirs).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${N:-30}"
sel="${BENCH:-.}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go test -c -o "$out/shell.test" ./tools/shell
go test -c -o "$out/windows.test" ./windows
rt=()
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null; then rt=(chrt -f 10); fi
(cd tools/shell && "${rt[@]}" "$out/shell.test" -test.run '^$' -test.bench "ContainedOverBare/$sel" -test.benchtime "${n}x")
(cd tools/shell && "${rt[@]}" "$out/shell.test" -test.run '^$' -test.bench "ContainedStart/$sel" -test.benchtime "${n}x")
(cd windows && "${rt[@]}" "$out/windows.test" -test.run '^$' -test.bench "BashWindowRun/$sel" -test.benchtime "${n}x")
