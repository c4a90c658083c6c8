package safegit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// aci's own git reaches no remote, whatever the repository's config
// allows: a partial clone's missing object is not fetched lazily through
// a promisor remote, even one whose ext:: transport the repository allows
// (protocol.ext.allow=always would win over a plain -c protocol.allow).
func TestNoTransport(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cases := []struct{ name, url string }{
		{"ext:: allowed by the repository", "ext::sh -c touch% MARK"},
		{"a local path", "LOCAL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, marker := t.TempDir(), filepath.Join(t.TempDir(), "ran")
			src := t.TempDir()
			run := func(d string, args ...string) string {
				cmd := exec.Command("git", args...)
				cmd.Dir = d
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
				return string(out)
			}
			run(src, "init", "-q", ".")
			os.WriteFile(filepath.Join(src, "f"), []byte("content\n"), 0o644)
			run(src, "add", "f")
			run(src, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "x")
			blob := run(src, "rev-parse", "HEAD:f")[:40]
			// A repository that lacks the blob and names a promisor remote.
			run(dir, "init", "-q", ".")
			url := c.url
			if url == "LOCAL" {
				url = src
			} else {
				url = strings.ReplaceAll(url, "MARK", marker)
			}
			for _, kv := range [][2]string{
				{"core.repositoryformatversion", "1"},
				{"extensions.partialclone", "origin"},
				{"remote.origin.url", url},
				{"remote.origin.promisor", "true"},
				{"protocol.ext.allow", "always"},
				{"protocol.file.allow", "always"},
			} {
				run(dir, "config", kv[0], kv[1])
			}
			out, err := Output(context.Background(), dir, nil, nil, "cat-file", "-p", blob)
			if err == nil || string(out) == "content\n" {
				t.Errorf("the missing object was fetched: %q %v", out, err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the transport's command ran")
			}
			// Plain git does fetch it: the setup is effective.
			cmd := exec.Command("git", "cat-file", "-p", blob)
			cmd.Dir = dir
			plain, _ := cmd.Output()
			_, ran := os.Stat(marker)
			if string(plain) != "content\n" && ran != nil {
				t.Fatalf("plain git neither fetched nor ran the transport: %s", plain)
			}
		})
	}
}
