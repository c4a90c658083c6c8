//go:build linux

package shell

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
)

// A command under bwrap with the network link, the pid namespace and the
// resource limits all at once: the limits helper passes the link's fds on
// to the network step, which hands over the proxy port and execs; so the
// proxy is reached, the command is its namespace's first process after
// bwrap's init, holds neither fd, keeps its exit status, and is bounded.
func TestContainedNetworkWithPIDNamespaceAndLimits(t *testing.T) {
	for _, rl := range []bool{false, true} {
		t.Run(map[bool]string{false: "best", true: "rlimits"}[rl], func(t *testing.T) {
			withLimits(t, limits.Values{MemoryMB: 1024, Processes: 512, FileSizeMB: 16}, rl)
			sh, _, _ := containedShell(t, sandbox.Bwrap)
			if !sh.Sandbox().OwnPIDNamespace() {
				t.Fatal("bwrap without a pid namespace")
			}
			regPort, rule := registry(t)
			nw := Network(netproxy.New(netproxy.Policy{Allow: []netproxy.Rule{rule}}), nil)
			ctx := context.Background()

			cmd := fmt.Sprintf(`curl -sS --max-time 5 http://127.0.0.2:%d/pkg.tgz; echo; echo pid=$$; `+
				`for fd in 3 4; do [ -e /proc/$$/fd/$fd ] && echo holds-fd-$fd; done; exit 7`, regPort)
			res, err := sh.Run(ctx, cmd, 30*time.Second, 10000, nw)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 7 {
				t.Errorf("exit %d, want the command's own 7; output %q", res.ExitCode, res.Output)
			}
			if !strings.Contains(res.Output, "package-data /pkg.tgz") {
				t.Errorf("the proxy was not reached: %q", res.Output)
			}
			if !strings.Contains(res.Output, "pid=2\n") {
				t.Errorf("bash is not the process after bwrap's init in its own pid namespace: %q", res.Output)
			}
			if strings.Contains(res.Output, "holds-fd") {
				t.Errorf("the command holds the link's files: %q", res.Output)
			}

			res, err = sh.Run(ctx, `head -c 20000000 /dev/zero > big`, 30*time.Second, 2000, nw)
			if err != nil || res.ExitCode == 0 || !strings.Contains(res.Limit, "file size limit (16 MB") {
				t.Errorf("file size limit behind the network step: exit %d err %v limit %q output %q", res.ExitCode, err, res.Limit, res.Output)
			}
		})
	}
}
