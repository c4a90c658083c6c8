//go:build linux

package shell

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/testfs"
	"github.com/aci-dev/aci/tools/sandbox"
)

// TestSecretFilesKeptBack: the workspace's secret files read as empty to
// a contained command, on both bwrap paths, whatever the route, and the
// result names the file it tried; a grant of one file lets one command
// read it, and only that one.
func TestSecretFilesKeptBack(t *testing.T) {
	for _, kind := range []sandbox.Kind{sandbox.Bwrap, bwrapOneShot} {
		t.Run(string(kind), func(t *testing.T) {
			sh, ws, _ := containedShell(t, kind)
			files := map[string]string{
				".env":                "API_TOKEN=s3cr3t-env-value\n",
				"app/.env.local":      "DB_PASS=s3cr3t-local\n",
				"certs/server.pem":    "s3cr3t-pem\n",
				"certs/server.key":    "s3cr3t-key\n",
				"deploy/id_ed25519":   "s3cr3t-ssh\n",
				"web/.npmrc":          "//registry.npmjs.org/:_authToken=s3cr3t-npm\n",
				".env.example":        "API_TOKEN=placeholder\n",
				"plain/.npmrc":        "registry=https://registry.npmjs.org/\n",
				"node_modules/x/.env": "DEP=dep-value\n",
			}
			testfs.Write(t, ws, 0o600, files)
			ctx := context.Background()
			run := func(cmd string, opts ...RunOption) RunResult {
				t.Helper()
				res, err := sh.Run(ctx, cmd, 30*time.Second, 0, opts...)
				if err != nil {
					t.Fatalf("%s: %v", cmd, err)
				}
				return res
			}
			for _, cmd := range []string{
				"cat .e?v | rev",
				"awk 1 .en* app/.en* | rev",
				"cat certs/* deploy/id_ed25519 web/.npmrc | base64",
				`python3 -c "import codecs;print(codecs.encode(open('.env').read(),'rot13'))"`,
				`node -e "console.log(require('fs').readFileSync('.env','utf8').split('').reverse().join(''))"`,
				"cp .e?v s1.txt && cat s1.txt",
			} {
				res := run(cmd)
				if strings.Contains(res.Output, "s3cr3t") || strings.Contains(res.Output, "eulav-vne") || strings.Contains(res.Output, "f3pe3g") {
					t.Errorf("%s: a secret reached the output: %q", cmd, res.Output)
				}
				if !slices.Contains(res.KeptBack, filepath.Join(ws, ".env")) && strings.Contains(cmd, ".e") {
					t.Errorf("%s: KeptBack = %v, want .env named", cmd, res.KeptBack)
				}
				// Only what it tried: making the stand-ins is not reading.
				if want := []string{filepath.Join(ws, ".env")}; cmd == "cat .e?v | rev" && !slices.Equal(res.KeptBack, want) {
					t.Errorf("%s: KeptBack = %v, want %v", cmd, res.KeptBack, want)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "s1.txt")); len(b) != 0 {
				t.Errorf("the copy holds %q", b)
			}
			// What is not secret reads as it is.
			res := run("cat .env.example plain/.npmrc node_modules/x/.env")
			for _, want := range []string{"placeholder", "registry=", "dep-value"} {
				if !strings.Contains(res.Output, want) {
					t.Errorf("not a secret, yet not read: %q in %q", want, res.Output)
				}
			}
			if len(res.KeptBack) != 0 {
				t.Errorf("KeptBack = %v for files that are not kept", res.KeptBack)
			}
			// Kept back means unchangeable too.
			res = run("echo x > .env; rm -f certs/server.key; mv app/.env.local app/y; true")
			if b, _ := os.ReadFile(filepath.Join(ws, ".env")); string(b) != files[".env"] {
				t.Errorf(".env changed to %q", b)
			}
			for _, f := range []string{"certs/server.key", "app/.env.local"} {
				if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			// Allowed: this command reads .env, and nothing else.
			res = run("cat .env; cat app/.env.local", Granted(sandbox.Grant{Read: []string{filepath.Join(ws, ".env")}}))
			if !strings.Contains(res.Output, "s3cr3t-env-value") || strings.Contains(res.Output, "s3cr3t-local") {
				t.Errorf("granted .env only, got %q", res.Output)
			}
			if res := run("cat .env"); strings.Contains(res.Output, "s3cr3t") {
				t.Errorf("the grant outlived its command: %q", res.Output)
			}
		})
	}
}

// BenchmarkContainedRunSecrets is BenchmarkContainedRun's bwrap row in a
// workspace holding three secret files: what keeping them back costs.
func BenchmarkContainedRunSecrets(b *testing.B) {
	ws := b.TempDir()
	for _, f := range []string{".env", ".env.local", "certs/server.pem"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755)
		os.WriteFile(filepath.Join(ws, f), []byte("S=1\n"), 0o600)
	}
	sb, err := sandbox.New(sandbox.DefaultPolicy(ws), sandbox.Options{Force: sandbox.Bwrap})
	if err != nil {
		b.Skipf("bwrap unavailable: %v", err)
	}
	sh, err := NewContainedShell(ws, sb)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sh.Close)
	cpu := cpuTime()
	for b.Loop() {
		if res, err := sh.Run(context.Background(), "true", 0, 1000); err != nil || res.ExitCode != 0 {
			b.Fatalf("exit %d err %v %q", res.ExitCode, err, res.Output)
		}
	}
	reportCPU(b, cpu)
}
