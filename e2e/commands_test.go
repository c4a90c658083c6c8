package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
	"github.com/aci-dev/aci/tools/sandbox"
)

// TestPipeCommandsSkillsAndPersonsAgents: aci -p "/name args" runs command
// files of all three folders (the project's over the person's, folders as
// namespaces), a skill as /name; a file with a built-in's name or broken
// front matter is a usage error, sent nowhere; the person's AGENTS.md is
// in the system message before the project's.
func TestPipeCommandsSkillsAndPersonsAgents(t *testing.T) {
	work, cfg := t.TempDir(), t.TempDir()
	testfs.Write(t, work, 0o644, map[string]string{
		".aci/commands/fix-issue.md":       "---\ndescription: fix an issue\nargument-hint: [number] [priority]\n---\nFix issue #$1 with priority $2. All: $ARGUMENTS",
		".claude/commands/git/commit.md":   "---\nallowed-tools: Bash(git add:*), Bash(git commit:*)\ndescription: commit\nmodel: haiku\n---\nWrite a commit message for: $ARGUMENTS",
		".claude/commands/status.md":       "shadowing the built-in",
		".aci/commands/broken.md":          "---\ndescription: \"unterminated\n---\nbody",
		".aci/skills/release/SKILL.md":     "---\nname: release\ndescription: Cut a release of this project\n---\nRELEASE STEPS: bump, tag, push.",
		".aci/skills/release/checklist.md": "- tests green",
		"AGENTS.md":                        "PROJECT-RULES",
	})
	testfs.Write(t, cfg, 0o644, map[string]string{
		"aci/commands/fix-issue.md": "PERSON'S FIX $1",
		"aci/commands/hello.md":     "Say hello to $1.",
		"aci/AGENTS.md":             "PERSON-RULES",
	})
	srv := fakeai.New(t)
	for range 4 {
		srv.Push(fakeai.Reply{Content: "ok"})
	}
	env := []string{"XDG_CONFIG_HOME=" + cfg}
	for _, q := range []string{`/fix-issue 123 "very high"`, "/git:commit the parser", "/hello Ada", "/release 1.2"} {
		if r := aci(t, work, srv, "", env, "-p", q); r.code != 0 || strings.TrimSpace(r.stdout) != "ok" {
			t.Fatalf("aci -p %q: code %d\n%s%s", q, r.code, r.stdout, r.stderr)
		}
	}
	reqs := srv.Requests()
	for i, want := range []string{
		`Fix issue #123 with priority very high. All: 123 "very high"`,
		"Write a commit message for: the parser",
		"Say hello to Ada.",
		"Use the skill release.",
	} {
		if got := reqs[i].LastUser(); !strings.HasPrefix(got, want) {
			t.Errorf("request %d: the model got %q, want %q", i+1, got, want)
		}
		if reqs[i].Model != "test-model" {
			t.Errorf("request %d: model %q", i+1, reqs[i].Model)
		}
	}
	if got := reqs[3].LastUser(); !strings.Contains(got, "RELEASE STEPS") || !strings.Contains(got, "checklist.md") || !strings.Contains(got, "ARGUMENTS: 1.2") {
		t.Errorf("/release sent %q", got)
	}
	sys := reqs[0].Messages[0].Content
	p, q := strings.Index(sys, "PERSON-RULES"), strings.Index(sys, "PROJECT-RULES")
	if p < 0 || q < 0 || p > q {
		t.Errorf("system message: the person's AGENTS.md at %d, the project's at %d", p, q)
	}
	first := string(reqs[0].Body)
	if !strings.Contains(first, "release: Cut a release of this project") || strings.Contains(first, "RELEASE STEPS") {
		t.Errorf("the launcher does not list the skill in one line, or its body was sent unopened")
	}

	usageErrors(t, work, srv, env, map[string]string{
		"/status":   "a built-in command has this name",
		"/broken x": "double-quoted",
	})
	// The model opens the skill when a task matches: its window shows SKILL.md.
	srv.Push(fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "skill", "target": "release"}))}, fakeai.Reply{Content: "released"})
	if r := aci(t, work, srv, "", env, "-p", "cut a release"); r.code != 0 || !strings.Contains(r.stderr, "skill release") {
		t.Errorf("opening the skill: code %d\n%s", r.code, r.stderr)
	}
	if body := string(srv.Requests()[5].Body); !strings.Contains(body, "RELEASE STEPS") || !strings.Contains(body, "checklist.md") {
		t.Errorf("the skill's window does not show SKILL.md and its files")
	}
	if r := aci(t, work, srv, "", env, "-p", "/status", "--output-format", "json"); r.code != 2 || !strings.Contains(r.stdout, "a built-in command has this name") {
		t.Errorf("headless: code %d, stdout %q", r.code, r.stdout)
	}
	if n := len(srv.Requests()); n != 6 {
		t.Errorf("a command that cannot run reached the model (%d requests)", n)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	testfs.Write(t, dir, 0o644, map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n", "go.mod": "module calc\n"})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// TestInitWritesAgentsMd: /init on a real repository; the model's write
// of AGENTS.md lands, and the person sees its diff.
func TestInitWritesAgentsMd(t *testing.T) {
	dir := gitRepo(t)
	srv := fakeai.New(t,
		act(openFile("AGENTS.md")),
		act(call("file_1", "write", map[string]any{"content": "# calc\n\nTest: go test ./...\n"})),
		fakeai.Reply{Content: "Wrote AGENTS.md."})
	// Writing AGENTS.md asks the person (it instructs every later turn),
	// but the person's own /init asked for it: pipe mode writes it without
	// --yes, and says so.
	r := aciOK(t, dir, srv, "", nil, "-p", "/init")
	if data, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md")); string(data) != "# calc\n\nTest: go test ./...\n" {
		t.Errorf("AGENTS.md = %q", data)
	}
	if !strings.Contains(r.stderr, "allowed for your /init: write") {
		t.Errorf("the person is not told why the write was allowed:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "+Test: go test ./...") {
		t.Errorf("the person does not see the change:\n%s", r.stderr)
	}
	if u := srv.Requests()[0].LastUser(); !strings.Contains(u, "write AGENTS.md") {
		t.Errorf("/init sent %q", u)
	}
}

// TestReviewChangesNothingOnDisk: /review on a repository with uncommitted
// changes; the model reads the diff, and its attempts to write a file, to
// run a writing command and to check out are refused: the working tree is
// as it was.
func TestReviewChangesNothingOnDisk(t *testing.T) {
	dir := gitRepo(t)
	testfs.Write(t, dir, 0o644, map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n", "new.go": "package calc\n"})
	before := git(t, dir, "status", "--porcelain") + git(t, dir, "diff")
	srv := fakeai.New(t,
		act(
			openBash,
			bashRun("git status --short && git diff HEAD"),
			openFile("calc.go"),
			call("file_1", "edit", map[string]any{"old_text": "a - b", "new_text": "a + b"}),
			bashRun("echo fixed > calc.go"),
			bashRun("git checkout -- calc.go"),
		),
		fakeai.Reply{Content: "calc.go:3: [blocker] Add subtracts."})
	r := aci(t, dir, srv, "", nil, "--yes", "-p", "/review")
	if r.code != 0 || !strings.Contains(r.stdout, "calc.go:3: [blocker]") {
		t.Fatalf("code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if after := git(t, dir, "status", "--porcelain") + git(t, dir, "diff"); after != before {
		t.Errorf("/review changed the working tree:\nbefore %s\nafter %s", before, after)
	}
	results := srv.Requests()[1].LastUser()
	if !strings.Contains(results, "a - b") {
		t.Errorf("the diff did not reach the model:\n%s", results)
	}
	// The edit and the checkout are refused by plan mode; the redirection
	// is refused too, or (contained) fails on the read-only workspace.
	n := strings.Count(results, "refused in plan mode")
	if strings.Contains(results, "calc.go: Read-only file system") {
		n++
	}
	if n != 3 {
		t.Errorf("%d refusals, want 3 (edit, echo >, git checkout):\n%s", n, results)
	}
}

// TestReviewRedirectRefusedByContainment: /review's turn runs in plan mode
// on real containment: a shell redirection fails on the read-only
// workspace, the model is told of plan mode for the turn, and no plan is
// offered after it (a review is not a plan to accept).
func TestReviewRedirectRefusedByContainment(t *testing.T) {
	dir := gitRepo(t)
	if sandbox.For(dir).Kind() != sandbox.Bwrap {
		t.Skip("no bwrap here: plan mode's containment is not tested")
	}
	srv := fakeai.New(t,
		act(
			openBash,
			bashRun("echo broken > calc.go"),
		),
		fakeai.Reply{Content: "No findings."})
	r := aci(t, dir, srv, "", nil, "-p", "/review", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "calc.go")); !strings.Contains(string(data), "a + b") {
		t.Errorf("/review changed calc.go: %q", data)
	}
	reqs := srv.Requests()
	if q := reqs[0].LastUser(); !strings.Contains(q, "permission mode plan for this /review turn") {
		t.Errorf("the model is not told /review runs in plan mode:\n%s", q)
	}
	if res := reqs[1].LastUser(); !strings.Contains(res, "calc.go: Read-only file system") ||
		!strings.Contains(res, `type="plan_mode"`) || strings.Contains(res, "uncontained=true") {
		t.Errorf("the redirection was not refused by containment, with plan mode's hint:\n%s", res)
	}
	if strings.Contains(r.stdout, "plan_ready") || strings.Contains(r.stdout, `"type":"mode"`) {
		t.Errorf("/review offered a plan or changed the mode:\n%s", r.stdout)
	}
}

// Plan mode refuses every way a model may try to change the workspace —
// the file window's write and edit, a shell redirection, a script in
// python (and node where installed) — on real containment, while reading
// and read-only commands still work; the model is told it plans.
func TestPlanModeRefusesEveryWrite(t *testing.T) {
	dir := t.TempDir()
	if sandbox.For(dir).Kind() != sandbox.Bwrap {
		t.Skip("no bwrap here: plan mode's containment is not tested")
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	calls := []fakeai.Call{
		openBash,
		bashRun("cat a.txt && ls"),
		bashRun("echo x > b.txt"),
		call("bash_1", "run", map[string]any{"command": `python3 -c "open('c.txt','w').write('x')"`}),
		bashRun("rm a.txt"),
		call("bash_1", "run", map[string]any{"command": "echo y > a.txt", "uncontained": true}),
		openFile("a.txt"),
		call("file_1", "edit", map[string]any{"old_text": "alpha", "new_text": "beta"}),
		call("file_1", "write", map[string]any{"content": "gamma\n"}),
		openFile("new.txt"),
		call("file_2", "write", map[string]any{"content": "new\n"}),
	}
	if _, err := exec.LookPath("node"); err == nil {
		calls = append(calls, call("bash_1", "run", map[string]any{"command": `node -e "require('fs').writeFileSync('d.txt','x')"`}))
	}
	srv := fakeai.New(t,
		act(calls...),
		fakeai.Reply{Content: "Plan:\n1. change alpha to beta in a.txt"},
	)
	aciOK(t, dir, srv, "rename alpha", nil, "--permission-mode", "plan")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "alpha\n" {
		t.Errorf("a.txt changed in plan mode: %q", b)
	}
	for _, name := range []string{"b.txt", "c.txt", "d.txt", "new.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was created in plan mode", name)
		}
	}
	reqs := srv.Requests()
	first := reqs[0].Messages
	if q := first[len(first)-1].Content; !strings.Contains(q, "permission mode plan") || !strings.Contains(q, "rename alpha") {
		t.Errorf("the model is not told it plans:\n%s", q)
	}
	results := reqs[1].Last()
	if !strings.Contains(results, "alpha") {
		t.Errorf("the read-only command did not read a.txt:\n%s", results)
	}
	if n := strings.Count(results, "refused in plan mode"); n < 4 {
		t.Errorf("%d refusals said, want the file writes, the dangerous rm and the uncontained run:\n%s", n, results)
	}
}

// Ask mode asks before a file change that default mode makes without a
// question: in pipe mode, with no one to ask, the edit is denied.
func TestAskModeAsksBeforeAnEdit(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	script := func() *fakeai.Server {
		return fakeai.New(t,
			act(
				openFile("a.txt"),
				call("file_1", "edit", map[string]any{"old_text": "alpha", "new_text": "beta"}),
			),
			fakeai.Reply{Content: "done"},
		)
	}
	r := aci(t, dir, script(), "edit", nil, "--permission-mode", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, "edit a.txt · denied: denied by aci in pipe mode") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "alpha\n" {
		t.Errorf("the edit ran without a yes: %q", b)
	}
	r = aci(t, dir, script(), "edit", nil, "--permission-mode", "default")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); r.code != 0 || string(b) != "beta\n" {
		t.Errorf("default mode: exit %d, a.txt %q\n%s", r.code, b, r.stderr)
	}
	// Claude Code's name for aci's default is taken too.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	r = aci(t, dir, script(), "edit", nil, "--permission-mode", "acceptEdits")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); r.code != 0 || string(b) != "beta\n" {
		t.Errorf("acceptEdits: exit %d, a.txt %q\n%s", r.code, b, r.stderr)
	}
}

// An unknown mode is a usage error naming the modes; --yes and another
// mode disagree.
func TestPermissionModeFlag(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t)
	r := aci(t, dir, srv, "q", nil, "--permission-mode", "careful")
	if r.code != 2 || !strings.Contains(r.stderr, "ask (Claude Code's default), default (acceptEdits), plan, yes (bypassPermissions)") {
		t.Errorf("unknown mode: exit %d stderr:\n%s", r.code, r.stderr)
	}
	r = aci(t, dir, srv, "q", nil, "--yes", "--permission-mode", "plan")
	if r.code != 2 || !strings.Contains(r.stderr, "disagree") {
		t.Errorf("--yes with plan: exit %d stderr:\n%s", r.code, r.stderr)
	}
}

// Without containment plan mode runs only commands known to be read-only.
func TestPlanModeWithoutSandbox(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	srv := fakeai.New(t,
		act(
			openBash,
			bashRun("grep alpha a.txt"),
			bashRun("echo x > b.txt"),
		),
		fakeai.Reply{Content: "Plan: nothing"},
	)
	aciOK(t, dir, srv, "look", []string{"ACI_SANDBOX=off"}, "--permission-mode", "plan")
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("plan mode without a sandbox ran a writing command")
	}
	results := srv.Requests()[1].Last()
	if !strings.Contains(results, "alpha") || !strings.Contains(results, "refused in plan mode: echo x > b.txt") {
		t.Errorf("results:\n%s", results)
	}
}
