package e2e

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// getText is a GET of the served API answering text: status and body.
func (s *served) getText(t *testing.T, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// changesWorkspace is a git work tree holding a.txt, b.txt and c.txt.
func changesWorkspace(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for name, data := range map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %s", c, out)
		}
	}
	return dir
}

// fakeToken is a secret the session never knew and aci export knows (a
// credential variable of the exporting process): export removes it.
const fakeToken = "ghp_exportSecret0123456789abcdefABCDEF"

// The session's changes over HTTP and the readable transcript: a file
// window's edit, a command's changes and a rewound turn's edit; the list
// holds the first two against the state before the session, not the
// rewound one; the export (HTTP and aci export) holds the questions,
// actions, diffs and answers, escapes HTML, removes secrets; an unknown
// session is 404 and exit 2.
func TestSessionChangesAndExport(t *testing.T) {
	dir, home := changesWorkspace(t), t.TempDir()
	shared := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	ai := fakeai.New(t,
		fakeai.Reply{Content: fileEdit("a.txt", "file_1", "a0", "a1")},
		fakeai.Reply{Content: "edited a"},
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "echo b1 > b.txt; echo n1 > n.txt; echo ran it"}})},
		fakeai.Reply{Content: "Done: <script>alert('x')</script> and " + fakeToken},
		fakeai.Reply{Content: fileEdit("c.txt", "file_2", "c0", "c3")},
		fakeai.Reply{Content: "edited c"},
	)
	s := startServe(t, dir, ai, shared, "--addr", "127.0.0.1:0")
	id := s.create(t)
	s.ask(t, id, "change a", 1)
	s.ask(t, id, "run the command", 2)
	s.ask(t, id, "change c", 3)
	var rw struct{ Files struct{ Restored []string } }
	if code := s.do(t, "POST", "/api/sessions/"+id+"/rewind", `{"turn":3,"conversation":false}`, &rw); code != 200 || len(rw.Files.Restored) != 1 {
		t.Fatalf("rewind: %d %+v", code, rw)
	}

	var changes struct {
		Files []struct{ Path, Status, Diff string }
		Note  string
	}
	if code := s.do(t, "GET", "/api/sessions/"+id+"/diff", "", &changes); code != 200 {
		t.Fatalf("diff: %d", code)
	}
	var got []string
	for _, f := range changes.Files {
		got = append(got, f.Path+":"+f.Status)
	}
	if strings.Join(got, " ") != "a.txt:modified b.txt:modified n.txt:added" {
		t.Fatalf("changes %v (note %q)", got, changes.Note)
	}
	if d := changes.Files[1].Diff; !strings.Contains(d, "-b0") || !strings.Contains(d, "+b1") || !strings.Contains(d, "b/b.txt") {
		t.Errorf("b.txt's diff:\n%s", d)
	}
	if code, _ := s.getText(t, "/api/sessions/nosuch/diff"); code != 404 {
		t.Errorf("diff of an unknown session: %d", code)
	}

	code, page := s.getText(t, "/api/sessions/"+id+"/export?format=html")
	if code != 200 {
		t.Fatalf("export: %d %s", code, page)
	}
	for _, want := range []string{"change a", "run the command", "+a1", "ran it", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the exported page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Error("the exported page holds a live <script>")
	}
	for _, bad := range []string{"/api/sessions/nosuch/export", "/api/sessions/" + id + "/export?format=pdf"} {
		if code, _ := s.getText(t, bad); code != 404 && code != 400 {
			t.Errorf("GET %s: %d", bad, code)
		}
	}

	// aci export, in the workspace, knowing the token as a credential.
	env := append(shared, "GITHUB_TOKEN="+fakeToken)
	r := aci(t, dir, ai, "", env, "export", id, "--format", "md")
	if r.code != 0 {
		t.Fatalf("aci export: %d %s", r.code, r.stderr)
	}
	for _, want := range []string{"## 1. change a", "## 2. run the command", "```diff", "+a1", "ran it", "<script>alert"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, fakeToken) {
		t.Error("aci export kept a secret it knows")
	}
	out := filepath.Join(t.TempDir(), "s.html")
	r = aci(t, dir, ai, "", env, "export", "--format", "html", "-o", out, id)
	data, _ := os.ReadFile(out)
	if r.code != 0 || !strings.Contains(string(data), "&lt;script&gt;") || strings.Contains(string(data), fakeToken) {
		t.Errorf("aci export -o: %d %s", r.code, r.stderr)
	}
	r = aci(t, dir, ai, "", shared, "export", "nosuch")
	if r.code != 2 || !strings.Contains(r.stderr, `no session "nosuch"`) {
		t.Errorf("unknown id: %d %q", r.code, r.stderr)
	}
	r = aci(t, dir, ai, "", shared, "export", id, "--format", "pdf")
	if r.code != 2 || !strings.Contains(r.stderr, "md or html") {
		t.Errorf("bad format: %d %q", r.code, r.stderr)
	}
}
