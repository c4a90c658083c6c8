package windows

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/protocol"
)

func newAppsManager(t *testing.T, approver Approver) (*Manager, string) {
	t.Helper()
	dir := t.TempDir()
	m := NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: approver}, FileApp, BashApp, WebApp)
	t.Cleanup(m.CloseAll)
	return m, dir
}

func denyAll() Approver {
	return ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Message: "no"} })
}

func TestBashRunAndStickyCd(t *testing.T) {
	m, dir := newAppsManager(t, denyAll())
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if r := do(t, m, "launcher", "open", `{"app":"bash"}`); r.Text != "opened bash_1" {
		t.Fatalf("open = %+v", r)
	}
	r := do(t, m, "bash_1", "run", `{"command":"echo out; echo err >&2; exit 3"}`)
	if r.Status != protocol.StatusOK || !strings.Contains(r.Text, "exit 3") || r.Output != "out\nerr" || !r.Failed {
		t.Fatalf("run = %+v", r)
	}
	do(t, m, "bash_1", "run", `{"command":"cd sub"}`)
	if r := do(t, m, "bash_1", "run", `{"command":"pwd"}`); r.Output != filepath.Join(dir, "sub") || r.Failed {
		t.Errorf("cd did not stick: %+v", r)
	}
	for _, w := range m.Windows() {
		if w.ID() == "bash_1" && w.Title() != filepath.Join(dir, "sub") {
			t.Errorf("title = %q, want the working directory", w.Title())
		}
	}
	// Once the model was sent them, the whole view shows the latest run
	// with its output, older runs as one line each.
	w := m.find("bash_1")
	w.(Observer).Seen(w.View())
	c := content(m, "bash_1")
	if !strings.HasPrefix(c, "$ echo out; echo err >&2; exit 3  → exit 3") || !strings.Contains(c, "$ cd sub  → exit 0") || !strings.Contains(c, "$ pwd\n"+filepath.Join(dir, "sub")) {
		t.Errorf("content:\n%s", c)
	}
}

// Two runs in one batch both reach the model in full through Changes, and
// rendering is a pure read.
func TestBashChangesShowEveryNewRun(t *testing.T) {
	m, _ := newAppsManager(t, denyAll())
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	w := m.find("bash_1")
	before := w.View()
	do(t, m, "bash_1", "run", `{"command":"seq 1 3000 | sed s/^/first/"}`)
	do(t, m, "bash_1", "run", `{"command":"seq 1 3000 | sed s/^/second/"}`)
	v1, v2 := w.View(), w.View()
	if v1.Content != v2.Content || v1.State != v2.State {
		t.Fatal("rendering twice gave different views")
	}
	delta, ok := w.(Incremental).Changes(before, v1)
	if !ok || !strings.Contains(delta, "first3000") || !strings.Contains(delta, "second3000") {
		t.Fatalf("changes miss a run (ok=%v):\n%.400s", ok, delta)
	}
	if d, ok := w.(Incremental).Changes(v1, v2); !ok || d != "" {
		t.Errorf("no change gave %q, %v", d, ok)
	}
}

// Every run the model was not yet sent is whole in a whole view, however
// many one batch ran; once sent, the older ones are one line each.
func TestBashWholeViewKeepsUnsentRuns(t *testing.T) {
	m, _ := newAppsManager(t, denyAll())
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	w := m.find("bash_1")
	do(t, m, "bash_1", "run", `{"command":"echo old"}`)
	w.(Observer).Seen(w.View())
	do(t, m, "bash_1", "run", `{"command":"echo new"}`)
	if c := w.View().Content; !strings.HasPrefix(c, "$ echo old  → exit 0, ") || !strings.Contains(c, "\n$ echo new\nnew\n[exit 0") {
		t.Errorf("want the run sent as one line, the new one whole:\n%s", c)
	}
	var tags []string
	for i := 1; i <= keptRuns+2; i++ {
		tag := fmt.Sprintf("run%d-", i)
		tags = append(tags, tag)
		do(t, m, "bash_1", "run", fmt.Sprintf(`{"command":"seq 1 300 | sed s/^/%s/"}`, tag))
	}
	v := w.View()
	for _, tag := range tags {
		if !strings.Contains(v.Content, tag+"1\n") || !strings.Contains(v.Content, tag+"300\n") {
			t.Errorf("whole view before it was sent lacks %s's output", tag)
		}
	}
	w.(Observer).Seen(v)
	after := w.View().Content
	for _, tag := range tags[:len(tags)-1] {
		if strings.Contains(after, tag+"1\n") {
			t.Errorf("after it was sent the view still shows %s's output", tag)
		}
	}
	if !strings.Contains(after, tags[len(tags)-1]+"300\n") || strings.Contains(after, "echo old") {
		t.Errorf("after it was sent, want the latest run whole and %d runs kept:\n%.300s", keptRuns, after)
	}
}

func TestBashLongOutputStaysInWindow(t *testing.T) {
	m, _ := newAppsManager(t, denyAll())
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	r := do(t, m, "bash_1", "run", `{"command":"seq 1 100000"}`)
	if !strings.Contains(r.Text, "lines of output, shown in bash_1") || len(r.Text) > 200 {
		t.Errorf("result carries the output: %.300s", r.Text)
	}
	c := content(m, "bash_1")
	if !strings.Contains(c, "truncated") || len(c) > 32000 {
		t.Errorf("window output not truncated: %d bytes", len(c))
	}
}

func TestBashTimeout(t *testing.T) {
	m, _ := newAppsManager(t, denyAll())
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	r := do(t, m, "bash_1", "run", `{"command":"sleep 30","timeout_s":1}`)
	if r.Status != protocol.StatusError || !strings.Contains(r.Text, "timeout") || !strings.Contains(r.Text, "exit 124") {
		t.Fatalf("run = %+v", r)
	}
}

func TestBashDangerousDeniedAndApproved(t *testing.T) {
	var asked int
	allow := false
	m, dir := newAppsManager(t, ApproverFunc(func(_ context.Context, req ApprovalRequest) Decision {
		asked++
		if req.Reason == "" || req.Kind != "command" {
			t.Errorf("bad request %+v", req)
		}
		return Decision{Allow: allow, Message: "use the trash instead"}
	}))
	home := t.TempDir()
	t.Setenv("HOME", home)
	sentinel := filepath.Join(home, "keep", "sentinel")
	os.MkdirAll(filepath.Dir(sentinel), 0o755)
	os.WriteFile(sentinel, []byte("x"), 0o644)
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	// uncontained: the test's home lies under /tmp, which contained
	// commands see as their session's own.
	cmd := `{"command":"rm -rf ~/keep","uncontained":true}`
	r := do(t, m, "bash_1", "run", cmd)
	if r.Status != protocol.StatusDenied || !strings.Contains(r.Text, "use the trash instead") {
		t.Fatalf("run = %+v", r)
	}
	if _, err := os.Stat(sentinel); err != nil {
		t.Fatal("the denied command ran")
	}
	allow = true
	if r := do(t, m, "bash_1", "run", cmd); r.Status != protocol.StatusOK {
		t.Fatalf("approved run = %+v", r)
	}
	if _, err := os.Stat(sentinel); err == nil {
		t.Fatal("the approved command did not run")
	}
	if r := do(t, m, "bash_1", "run", `{"command":"go version >/dev/null; ls"}`); r.Status != protocol.StatusOK || asked != 2 {
		t.Errorf("benign command asked: %+v (asked %d)", r, asked)
	}
	_ = dir
}

func TestBashBackgroundTasks(t *testing.T) {
	m, _ := newAppsManager(t, denyAll())
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	r := do(t, m, "bash_1", "start", `{"command":"echo started-ok; sleep 0.2; echo finished-ok"}`)
	if r.Status != protocol.StatusStarted || !strings.HasPrefix(r.Text, "task_") {
		t.Fatalf("start = %+v", r)
	}
	id := strings.Fields(r.Text)[0]
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(content(m, "bash_1"), id+" completed (exit 0)") {
		if time.Now().After(deadline) {
			t.Fatalf("task never completed:\n%s", content(m, "bash_1"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if c := content(m, "bash_1"); !strings.Contains(c, "finished-ok") {
		t.Errorf("content:\n%s", c)
	}
	r = do(t, m, "bash_1", "start", `{"command":"sleep 30"}`)
	id = strings.Fields(r.Text)[0]
	if k := do(t, m, "bash_1", "kill", `{"task_id":"`+id+`"}`); k.Status != protocol.StatusOK || k.Text != "killed "+id {
		t.Fatalf("kill = %+v", k)
	}
	if c := content(m, "bash_1"); !strings.Contains(c, id+" killed") {
		t.Errorf("content:\n%s", c)
	}
	if k := do(t, m, "bash_1", "kill", `{"task_id":"task_999"}`); k.Status != protocol.StatusError {
		t.Errorf("kill unknown = %+v", k)
	}
}

func TestBashCloseKillsTasks(t *testing.T) {
	m, dir := newAppsManager(t, denyAll())
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	marker := filepath.Join(dir, "late")
	do(t, m, "bash_1", "start", `{"command":"sleep 1; touch late"}`)
	if r := do(t, m, "bash_1", "close", ""); r.Status != protocol.StatusOK {
		t.Fatalf("close = %+v", r)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a task outlived its window")
	}
}

func TestWebFetchWindow(t *testing.T) {
	long := strings.Repeat("lorem ipsum dolor sit amet\n", 2000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/doc":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>Doc</title><script>evil()</script></head><body><nav>menu</nav><h1>Hello</h1><p>%s</p></body></html>", long)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	m, _ := newAppsManager(t, denyAll())
	r := do(t, m, "launcher", "open", `{"app":"web_fetch","target":"`+srv.URL+`/doc"}`)
	if r.Status != protocol.StatusOK || !strings.HasPrefix(r.Text, "opened web_fetch_1: fetched") {
		t.Fatalf("open = %+v", r)
	}
	c := content(m, "web_fetch_1")
	if !strings.Contains(c, "# Hello") || strings.Contains(c, "evil()") || !strings.Contains(c, "page 1 of") {
		t.Errorf("content:\n%.500s", c)
	}
	if r := do(t, m, "web_fetch_1", "page", `{"n":2}`); r.Status != protocol.StatusOK {
		t.Fatalf("page = %+v", r)
	}
	if c := content(m, "web_fetch_1"); !strings.Contains(c, "page 2 of") {
		t.Errorf("content:\n%.300s", c)
	}
	if r := do(t, m, "web_fetch_1", "page", `{"n":99}`); r.Status != protocol.StatusError {
		t.Errorf("page 99 = %+v", r)
	}
	if r := do(t, m, "web_fetch_1", "fetch", `{"url":"`+srv.URL+`/missing"}`); r.Status != protocol.StatusError || !strings.Contains(r.Text, "404") {
		t.Errorf("fetch 404 = %+v", r)
	}
	if r := do(t, m, "launcher", "open", `{"app":"web_fetch","target":"ftp://x"}`); r.Status != protocol.StatusError {
		t.Errorf("open ftp = %+v", r)
	}
}

func TestInternalAddr(t *testing.T) {
	for _, tt := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", false}, {"::1", false}, {"93.184.216.34", false}, {"2606:4700::1111", false},
		{"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.1.1", true}, {"169.254.169.254", true},
		{"fd00::1", true}, {"fe80::1", true}, {"0.0.0.0", true},
	} {
		if got := internalAddr(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("internalAddr(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

// The notes for the model are the window's: a timeout and a cut output each
// get theirs after the output, and the person's copy has none.
func TestBashHints(t *testing.T) {
	m, _ := newAppsManager(t, denyAll())
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	r := do(t, m, "bash_1", "run", `{"command":"seq 1 100000; sleep 5","timeout_s":1}`)
	c := content(m, "bash_1")
	for _, want := range []string{`<system_hint type="output_truncated">`, `<system_hint type="timeout">The command was killed after 1 s`, "[… truncated: "} {
		if !strings.Contains(c, want) {
			t.Errorf("window lacks %q:\n%.300s", want, c[len(c)-600:])
		}
	}
	if strings.Contains(r.Output, "system_hint") || r.Status != protocol.StatusError || !r.Failed {
		t.Errorf("result for the person: status %s failed %v, hint in output %v", r.Status, r.Failed, strings.Contains(r.Output, "system_hint"))
	}
}
