#!/usr/bin/env bash
# What the network containment adds to one contained command, with the real
# aci binary: bwrap as aci runs it, then the same with its own network
# namespace and aci's forwarder in front of the command. Run it as root
# with real-time priority to leave out the wait for a core on a busy
# machine: chrt -f 10 bench/netns_overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o /tmp/aci-bench .
n=${N:-50}
B=(bwrap --unshare-user --unshare-ipc --cap-drop ALL --ro-bind / / --dev /dev)
per() { # average wall time of n runs of "$@", in microseconds
  local s
  s=$(date +%s%N)
  for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 3</dev/null 4</tmp/aci-bench; done
  echo $(( ($(date +%s%N) - s) / n / 1000 ))
}
plain=$(per "${B[@]}" -- bash -c true)
netns=$(per "${B[@]}" --unshare-net -- bash -c true)
fwd=$(per "${B[@]}" --unshare-net -- /proc/self/fd/4 __aci_sandbox_net__ 41080 -- bash -c true)
echo "bwrap, bash -c true:                 ${plain} us"
echo "+ own network namespace:             ${netns} us"
echo "+ namespace and aci's forwarder:     ${fwd} us (adds $((fwd - plain)) us)"
