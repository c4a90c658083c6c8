//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Secret files the person writes right before a command (the index
// looked a moment earlier, in the same tick of the kernel's clock maybe)
// are kept back from it all the same, stay where they are (not taken for
// the command's doing and moved out) and cannot be moved or removed by it.
func TestSecretMadeJustBeforeCommandKeptBack(t *testing.T) {
	tr := newTree(t)
	tr.policy.Protected, tr.policy.StandIns = protectedCandidates(tr.ws, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	runReleased(t, s, tr.ws, "true")
	for i := range 8 {
		n := strconv.Itoa(i)
		files := map[string]string{
			".env." + n:                     "s3cr3t-root-" + n,
			filepath.Join("d"+n, ".env"):    "s3cr3t-sub-" + n,
			filepath.Join("d"+n, "x.pem"):   "s3cr3t-pem-" + n,
			filepath.Join("d"+n, ".env.eg"): "s3cr3t-eg-" + n,
		}
		os.Mkdir(filepath.Join(tr.ws, "d"+n), 0o755)
		for f, body := range files {
			if err := os.WriteFile(filepath.Join(tr.ws, f), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		out, _, notes := runReleased(t, s, tr.ws, "cat .env.* d"+n+"/* d"+n+"/.e*; "+
			"mv .env."+n+" moved; rm -f d"+n+"/x.pem; mv d"+n+"/.env d"+n+"/y; true")
		if strings.Contains(out, "s3cr3t") {
			t.Errorf("round %d: a secret reached the command: %q", i, out)
		}
		if len(notes) > 0 {
			t.Errorf("round %d: notes %q", i, notes)
		}
		for f, body := range files {
			if b, err := os.ReadFile(filepath.Join(tr.ws, f)); err != nil || string(b) != body {
				t.Errorf("round %d: %s = %q, %v", i, f, b, err)
			}
		}
	}
}

// BenchmarkIndexLook is what each command's fresh look costs in a
// workspace of 5,000 folders where nothing changed: a stat per folder.
func BenchmarkIndexLook(b *testing.B) {
	ws := b.TempDir()
	for i := range 50 {
		for j := range 100 {
			os.MkdirAll(filepath.Join(ws, "d"+strconv.Itoa(i), "e"+strconv.Itoa(j)), 0o755)
		}
	}
	os.WriteFile(filepath.Join(ws, ".env"), []byte("S=1\n"), 0o600)
	x := &protectIndex{root: ws}
	x.look()
	for b.Loop() {
		x.wantLook()
		x.recent()
	}
}

// A folder above a kept-back file can be renamed (the file itself, a
// mount point, cannot): the file goes with it, here into node_modules,
// which the index does not look into. aci puts it back after the command
// and says so; the next command reads it nowhere.
func TestKeptFileMovedWithItsFolderPutBack(t *testing.T) {
	tr := newTree(t)
	tr.policy.Protected, tr.policy.StandIns = protectedCandidates(tr.ws, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	key := filepath.Join(tr.ws, "certs", "server.key")
	os.MkdirAll(filepath.Dir(key), 0o755)
	os.MkdirAll(filepath.Join(tr.ws, "node_modules"), 0o755)
	os.WriteFile(key, []byte("s3cr3t-key"), 0o600)
	out, _, notes := runReleased(t, s, tr.ws, "mv certs node_modules/c && cat node_modules/c/server.key")
	if strings.Contains(out, "s3cr3t") {
		t.Errorf("read after the move: %q", out)
	}
	if b, err := os.ReadFile(key); string(b) != "s3cr3t-key" {
		t.Errorf("certs/server.key = %q, %v (notes %q)", b, err, notes)
	}
	if j := strings.Join(notes, "\n"); !strings.Contains(j, "certs/server.key (put back: the command moved it to node_modules/c/server.key") {
		t.Errorf("notes: %q", notes)
	}
	if out, _, _ := runReleased(t, s, tr.ws, "cat certs/server.key node_modules/c/server.key"); strings.Contains(out, "s3cr3t") {
		t.Errorf("the next command read it: %q", out)
	}
}
