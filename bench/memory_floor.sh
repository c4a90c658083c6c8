#!/usr/bin/env bash
# Where a one-question run's peak memory comes from. Builds, with a plain
# `go build`, throwaway programs that only link packages (blank imports, a
# main that prints one line) and measures their peak RSS beside aci's own:
#
#   net/http alone                    the runtime, libc and the HTTP stack
#   + openai-go                       what the SDK's package init touches
#   every third-party package aci links, with and without openai-go or the
#   MCP SDK                           what each costs with the rest present
#   aci --version                     aci linked whole, nothing run but init
#   aci -p "What is 2+2?"             the one-question run, through bench/startup.sh
#   the same with CGO_ENABLED=0       what dynamic linking against libc costs
#
# Peak RSS is mostly the executable's pages that package init and the run
# touch; the kernel maps them 64 KB at a time (fault-around), so linking a
# package costs memory even when aci never calls it. Medians of RUNS runs
# (default 9). Needs /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-9}
tmp=$(mktemp -d)
pkgdir=$(mktemp -d "$PWD/bench/.floor.XXXXXX")
trap 'rm -rf "$tmp" "$pkgdir"' EXIT

# median peak RSS in MB of running "$@" $runs times
peak() {
  "$@" >/dev/null 2>&1 || true # warm the page cache
  for _ in $(seq "$runs"); do
    /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
  done | sort -n | awk '{r[NR]=$1} END{printf "%.1f", r[int((NR+1)/2)]/1024}'
}

# a program that links the packages given, runs their init and exits
linked() {
  {
    echo 'package main'
    echo 'import ('
    echo '	"fmt"'
    for p in "$@"; do echo "	_ \"$p\""; done
    echo ')'
    echo 'func main() { fmt.Println("linked") }'
  } >"$pkgdir/main.go"
  go build -o "$tmp/linked" "$pkgdir"
  # A copy: pages the linker wrote through a memory map are cached in large
  # folios, which would count more of the file than a reader maps.
  cp "$tmp/linked" "$tmp/linked.copy"
  printf '%6s MB  %6s MB binary\n' "$(peak "$tmp/linked.copy")" "$(stat -c %s "$tmp/linked" | awk '{printf "%.1f", $1/1048576}')"
}

openai=github.com/openai/openai-go/v3
mcp=github.com/modelcontextprotocol/go-sdk
# every non-standard package aci links, bar its own
third=$(go list -deps . | grep '\.' | grep -v -e '^github.com/aci-dev/' -e '^vendor/' -e '/internal' || true)
without() { echo "$third" | grep -v "^$1"; } # every package of one module

row() { printf '%-44s %s\n' "$1" "$2"; }
r=$(linked net/http); row 'net/http alone:' "$r"
r=$(linked net/http "$openai"); row 'net/http + openai-go:' "$r"
# shellcheck disable=SC2086
r=$(linked net/http $third); row 'all third-party packages aci links:' "$r"
# shellcheck disable=SC2046
r=$(linked net/http $(without "$openai")); row '  the same without openai-go:' "$r"
# shellcheck disable=SC2046
r=$(linked net/http $(without "$mcp")); row '  the same without the MCP SDK:' "$r"

go build -o "$tmp/aci" .
cp "$tmp/aci" "$tmp/aci.copy"
CGO_ENABLED=0 go build -o "$tmp/aci-nocgo" .
printf '%-44s %6s MB\n' 'aci --version (init only):' "$(peak "$tmp/aci.copy" --version)"

# the one-question run, as bench/startup.sh measures it
oneq() { ACI_BIN=$1 RUNS=$runs bash bench/startup.sh | awk '/^peak RSS/{print $4}'; }
printf '%-44s %6s MB\n' 'aci -p "What is 2+2?":' "$(oneq "$tmp/aci")"
printf '%-44s %6s MB\n' 'aci -p "What is 2+2?", CGO_ENABLED=0:' "$(oneq "$tmp/aci-nocgo")"
