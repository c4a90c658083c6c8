package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A language server that fails to start is told to the person once, as a
// "diagnostics" notice event (the REPL, the page, stream-json and ACP
// show those), however many of its files the model opens.
func TestSessionServerFailureNotice(t *testing.T) {
	install, err := os.MkdirTemp("/tmp", "aci-person-install-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(install) })
	prog := filepath.Join(install, "broken-ls")
	os.WriteFile(prog, []byte("#!/bin/sh\necho 'broken-ls: no luck' >&2\nexit 2\n"), 0o755)
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	os.MkdirAll(filepath.Join(cfg, "aci"), 0o755)
	os.WriteFile(filepath.Join(cfg, "aci", "settings.json"),
		[]byte(`{"lsp":{"x":{"command":["`+prog+`"],"extensions":[".x"]}}}`), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"a.x"}`)},
		fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"b.x"}`)},
		fakeai.Reply{Content: call("file_1", "write", `{"content":"again\n"}`)},
		fakeai.Reply{Content: "Done."},
	)
	f, work := newFactory(t, srv)
	os.WriteFile(filepath.Join(work, "a.x"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(work, "b.x"), []byte("b\n"), 0o644)
	s, err := f.New(context.Background(), Options{Workdir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, live, stop := s.Subscribe(0)
	defer stop()
	if _, err := s.Start("look"); err != nil {
		t.Fatal(err)
	}
	var told []string
	for _, ev := range collect(t, live, "result") {
		if ev.Type == "notice" && ev.Data["kind"] == "diagnostics" && strings.Contains(ev.Data["text"].(string), "broken-ls") {
			told = append(told, ev.Data["text"].(string))
		}
	}
	if len(told) != 1 || !strings.Contains(told[0], "no diagnostics for x files") {
		t.Errorf("the person was told %q, want one line", told)
	}
}
