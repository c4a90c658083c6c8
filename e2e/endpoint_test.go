package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

// A key goes only where the person sent it (PROTOCOL.md §2 "Endpoints and
// keys"): the real binary, loopback servers standing in for the person's
// endpoint and the one a cloned repository names.

// sawKey reports whether any request srv received carried key.
func sawKey(srv *fakeai.Server, key string) bool {
	for _, r := range srv.Requests() {
		if strings.Contains(r.Header.Get("Authorization"), key) {
			return true
		}
	}
	return false
}

// A workspace .env naming only another base URL gets no key: not the one
// in the person's own file, not the one in the environment. aci refuses,
// naming the file and the variable, exit 2; stream-json carries it as a
// notice.
func TestWorkspaceEndpointGetsNoPersonKey(t *testing.T) {
	elsewhere := fakeai.New(t, fakeai.Reply{Content: "stolen"})
	for _, tc := range []struct {
		name    string
		keyFile bool // the key in ~/.config/aci/.env, else in the environment
		format  string
	}{
		{name: "key in the person's file", keyFile: true},
		{name: "key in the environment"},
		{name: "stream-json", format: "stream-json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(dir, ".env"), "OPENAI_BASE_URL="+elsewhere.URL+"\n", 0o600)
			env := testutil.ChildEnv(home, "", testKey)
			if tc.keyFile {
				writeFile(t, filepath.Join(home, ".config", "aci", ".env"), "OPENAI_API_KEY="+testKey+"\n", 0o600)
				env = testutil.ChildEnv(home, "", "")
			}
			args := []string{"-p", "hi"}
			if tc.format != "" {
				args = append(args, "--output-format", tc.format)
			}
			r := aciEnv(t, dir, env, "", args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\nstderr:\n%s", r.code, r.stderr)
			}
			for _, want := range []string{"OPENAI_BASE_URL", filepath.Join(dir, ".env"), elsewhere.URL, "refused"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not name %q:\n%s", want, r.stderr)
				}
			}
			if tc.keyFile && !strings.Contains(r.stderr, filepath.Join("~", ".config", "aci", ".env")) {
				t.Errorf("stderr does not say the key is from the person's file:\n%s", r.stderr)
			}
			if tc.format == "stream-json" {
				var n struct{ Type, Kind, Text string }
				if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &n); err != nil || n.Type != "notice" || !strings.Contains(n.Text, elsewhere.URL) {
					t.Errorf("stream-json: want one notice naming the endpoint, got %q (%v)", r.stdout, err)
				}
			}
			if sawKey(elsewhere, testKey) || len(elsewhere.Requests()) > 0 {
				t.Fatalf("the workspace's endpoint was sent %d requests", len(elsewhere.Requests()))
			}
		})
	}
}

// With its own key in the same file the workspace's endpoint works, and
// gets that key: not the person's, even where the environment holds one
// (which would otherwise win).
func TestWorkspaceEndpointWithItsOwnKey(t *testing.T) {
	elsewhere := fakeai.New(t, fakeai.Reply{Content: "fine"})
	home, dir := t.TempDir(), t.TempDir()
	const own = "sk-workspace-own-key-5566"
	writeFile(t, filepath.Join(dir, ".env"), "OPENAI_BASE_URL="+elsewhere.URL+"\nOPENAI_API_KEY="+own+"\n", 0o600)
	r := aciEnv(t, dir, testutil.ChildEnv(home, "", testKey), "", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "fine") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if sawKey(elsewhere, testKey) {
		t.Fatal("the person's key went to the workspace's endpoint")
	}
	if !sawKey(elsewhere, own) {
		t.Error("the workspace's own key was not used")
	}
}

// A folder trusted with a question that named the endpoint works: the
// page (aci serve) asks, naming it; after yes, pipe mode sends the key
// there. A changed endpoint is refused again; --trust never covers one.
func TestTrustedFolderNamesTheEndpoint(t *testing.T) {
	elsewhere := fakeai.New(t, fakeai.Reply{Content: "trusted answer"})
	xdg, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".env"), "OPENAI_BASE_URL="+elsewhere.URL+"\n", 0o600)
	cfg := "XDG_CONFIG_HOME=" + xdg

	s := startServe(t, dir, nil, []string{cfg})
	var created map[string]any
	if code := s.do(t, "POST", "/api/sessions", `{}`, &created); code < 400 || !strings.Contains(strings.ToLower(asText(created)), "openai_base_url") {
		t.Errorf("untrusted: a session was made (%d %v)", code, created)
	}
	var info struct {
		Lines   []string `json:"lines"`
		Trusted bool     `json:"trusted"`
	}
	s.do(t, "GET", "/api/trust", "", &info)
	if info.Trusted || !strings.Contains(strings.Join(info.Lines, "\n"), "endpoint "+elsewhere.URL) {
		t.Fatalf("the page's question does not name the endpoint: %+v", info)
	}
	if code := s.do(t, "POST", "/api/trust", `{"trust": true}`, nil); code != 200 {
		t.Fatalf("trust: %d", code)
	}
	if code := s.do(t, "POST", "/api/sessions", `{}`, &created); code != 201 {
		t.Errorf("trusted: no session (%d %v)", code, created)
	}
	if len(elsewhere.Requests()) > 0 {
		t.Error("the endpoint was asked before any question")
	}

	env := append(baseEnv(t, nil, cfg), "OPENAI_BASE_URL=")
	r := aciEnv(t, dir, env, "", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "trusted answer") || !sawKey(elsewhere, testKey) {
		t.Fatalf("trusted folder: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}

	other := fakeai.New(t, fakeai.Reply{Content: "stolen"})
	writeFile(t, filepath.Join(dir, ".env"), "OPENAI_BASE_URL="+other.URL+"\n", 0o600)
	for _, args := range [][]string{{"-p", "hi"}, {"-p", "hi", "--trust"}} {
		r = aciEnv(t, dir, env, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, other.URL) {
			t.Errorf("%v: a changed endpoint: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	if len(other.Requests()) > 0 {
		t.Error("the changed endpoint got requests")
	}
}

func asText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The environment's and the person's own endpoints are theirs: a key in
// the person's file goes to a base URL in the person's file.
func TestPersonsEndpointKeepsWorking(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "mine"})
	home, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "aci", ".env"), "OPENAI_API_KEY="+testKey+"\nOPENAI_BASE_URL="+srv.URL+"\n", 0o600)
	writeFile(t, filepath.Join(dir, ".env"), "OPENAI_MODEL=test-model\n", 0o600)
	r := aciEnv(t, dir, testutil.ChildEnv(home, "", ""), "", "-p", "hi")
	if r.code != 0 || !sawKey(srv, testKey) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".env")); err != nil {
		t.Fatal(err)
	}
}
