package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/tools/settings"
)

// slowServer is a language server in bash that answers initialize at
// once and publishes one error for each opened or changed text a second
// later.
var slowServer = bashServer("", "sleep 1", "slow error")

func TestPoolSlowServer(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "slow.sh"), []byte(slowServer), 0o755)
	wait := 300 * time.Millisecond
	p := NewPool(Options{Workdir: dir, Wait: wait, StartTimeout: 10 * time.Second, Trusted: true,
		Servers: map[string]settings.LSPServer{"x": {Command: []string{"./slow.sh"}, Extensions: []string{".x"}}}})
	defer p.Close()
	path := filepath.Join(dir, "a.x")
	// The first open waits for the start; its diagnostics come a second
	// later, as do the next changes'.
	p.Sync(context.Background(), path, "v0")
	// On a loaded machine the start itself may outlast the first wait, and
	// changes while a server starts do not count against it: begin once
	// the first text's diagnostics are in.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if r, _ := p.Diagnostics(path); len(r.List) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow server's first diagnostics never showed")
		}
	}
	for i := 1; i <= slowAfter; i++ {
		start := time.Now()
		p.Sync(context.Background(), path, fmt.Sprint("v", i))
		if d := time.Since(start); d < wait || d > wait+time.Second {
			t.Errorf("change %d waited %s, want the bound %s", i, d, wait)
		}
	}
	r, _ := p.Diagnostics(path)
	if !strings.Contains(r.Note, "slow.sh is slow (no diagnostics within 300ms of a change)") {
		t.Errorf("note %q", r.Note)
	}
	start := time.Now()
	p.Sync(context.Background(), path, "v9")
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("a change to a slow server waited %s", d)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if r, _ := p.Diagnostics(path); len(r.List) == 1 && r.List[0].Message == "slow error" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow server's diagnostics never showed")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
