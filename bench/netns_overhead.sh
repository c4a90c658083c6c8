#!/usr/bin/env bash
# What the network containment adds to one contained command, with the real
# aci binary: bwrap as aci runs it, then the same with its own network
# namespace, then with aci's first step in front of the command (it opens
# the proxy port in the namespace, hands it to aci over the link, and execs
# the command). Run it as root with real-time priority to leave out the
# wait for a core on a busy machine: chrt -f 10 bench/netns_overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o /tmp/aci-bench .
exec python3 - "${N:-50}" <<'PY'
import os, socket, subprocess, sys, time
n = int(sys.argv[1])
B = ["bwrap", "--unshare-user", "--unshare-ipc", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev"]
exe = os.dup2(os.open("/tmp/aci-bench", os.O_RDONLY), 20)  # clear of fds 3 and 4
def per(argv, link=False):
    start = time.perf_counter()
    for _ in range(n):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        def fds():
            os.dup2(theirs.fileno(), 3)
            os.dup2(exe, 4)
        subprocess.run(argv, preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, check=True)
        if link:
            msg, anc, _, _ = ours.recvmsg(1, socket.CMSG_SPACE(4))
            assert anc, "the first step sent no socket"
            os.close(int.from_bytes(anc[0][2][:4], sys.byteorder))
        ours.close(); theirs.close()
    return (time.perf_counter() - start) / n * 1e6
plain = per(B + ["--", "bash", "-c", "true"])
netns = per(B + ["--unshare-net", "--", "bash", "-c", "true"])
step = per(B + ["--unshare-net", "--", "/proc/self/fd/4", "__aci_sandbox_net__", "41080", "--", "bash", "-c", "true"], link=True)
print(f"bwrap, bash -c true:                  {plain:7.0f} us")
print(f"+ own network namespace:              {netns:7.0f} us")
print(f"+ namespace and aci's first step:     {step:7.0f} us (adds {step - plain:.0f} us)")
PY
