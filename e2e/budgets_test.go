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

// budgetModel costs $1 per 1,000 prompt tokens (settings' prices): each
// scripted reply of budgetReply costs exactly $1.
const budgetModel = "budget-model"

const budgetPrices = `"prices": {"budget-model": {"input": 1000, "output": 0}}`

// budgetSetup is a home whose settings hold settings (a JSON object's
// inner text, "" for none), and a workspace.
func budgetSetup(t *testing.T, settings string) (home, dir string) {
	t.Helper()
	home, dir = t.TempDir(), t.TempDir()
	if settings != "" {
		p := filepath.Join(home, ".config", "aci", "settings.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("{"+settings+"}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, dir
}

// budgetRun runs aci -p in dir with home's settings and json output, and
// returns the run and its result object.
func budgetRun(t *testing.T, srv *fakeai.Server, home, dir string, args ...string) (runResult, map[string]any) {
	t.Helper()
	env := testutil.ChildEnv(home, srv.URL, testKey, "OPENAI_MODEL="+budgetModel)
	r := aciEnv(t, dir, env, "", append([]string{"-p", "keep going", "--output-format", "json"}, args...)...)
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s\nstderr %s", err, r.stdout, r.stderr)
	}
	return r, res
}

// busyModel opens a file window each time, a different one each time: it
// never answers, never loops, and each reply costs $1.
func busyModel(t *testing.T) *fakeai.Server {
	srv := fakeai.New(t)
	n := 0
	srv.Handle(func(fakeai.Request) fakeai.Reply {
		n++
		return fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": strings.Repeat("f", n) + ".txt"})),
			PromptTokens: 1000, CompletionTokens: 10}
	})
	return srv
}

// wantLimit checks a run that reached limit: exit 1, outcome "limit"
// naming it, the error saying why.
func wantLimit(t *testing.T, r runResult, res map[string]any, limit, says string) {
	t.Helper()
	msg, _ := res["error"].(string)
	if r.code != 1 || res["outcome"] != "limit" || res["limit"] != limit || res["is_error"] != true || !strings.Contains(msg, says) {
		t.Fatalf("exit %d result %v\nstderr %s", r.code, res, r.stderr)
	}
	for _, k := range []string{"num_steps", "usage", "total_cost_usd", "session_id"} {
		if _, ok := res[k]; !ok {
			t.Errorf("the result lacks %s: %v", k, res)
		}
	}
}

func TestBudgetStepsPipe(t *testing.T) {
	srv := busyModel(t)
	home, dir := budgetSetup(t, budgetPrices)
	r, res := budgetRun(t, srv, home, dir, "--max-steps", "2")
	wantLimit(t, r, res, "steps", "step limit reached: 2 model calls")
	if res["num_steps"] != float64(2) || len(srv.Requests()) != 2 {
		t.Errorf("num_steps %v, %d requests; want 2", res["num_steps"], len(srv.Requests()))
	}
	// From the person's settings, the flag winning over them.
	home, dir = budgetSetup(t, budgetPrices+`, "limits": {"max_steps": 3}`)
	srv = busyModel(t)
	r, res = budgetRun(t, srv, home, dir)
	wantLimit(t, r, res, "steps", "3 model calls")
	srv = busyModel(t)
	r, res = budgetRun(t, srv, home, dir, "--max-steps", "1")
	wantLimit(t, r, res, "steps", "1 model call")
}

func TestBudgetUSDPipe(t *testing.T) {
	srv := busyModel(t)
	home, dir := budgetSetup(t, budgetPrices)
	r, res := budgetRun(t, srv, home, dir, "--max-budget-usd", "1.50")
	wantLimit(t, r, res, "budget", "spent $2.00 of $1.50")
	if n := len(srv.Requests()); n != 2 || res["total_cost_usd"] != float64(2) {
		t.Errorf("%d requests, cost %v; want 2 requests and $2", n, res["total_cost_usd"])
	}
	// Transcript kept: the run's session is there to resume.
	if out := aciEnv(t, dir, testutil.ChildEnv(home, srv.URL, testKey), "", "--sessions"); !strings.Contains(out.stdout, "keep going") {
		t.Errorf("the session is not listed:\n%s\n%s", out.stdout, out.stderr)
	}
	// From the person's settings.
	home, dir = budgetSetup(t, budgetPrices+`, "limits": {"max_budget_usd": 0.5}`)
	srv = busyModel(t)
	r, res = budgetRun(t, srv, home, dir)
	wantLimit(t, r, res, "budget", "spent $1.00 of $0.50")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// With a budget, a model whose price is unknown is stopped: what it
// spends cannot be counted.
func TestBudgetUnknownPrice(t *testing.T) {
	ip := fakeai.NonLoopbackIP()
	if ip == "" {
		t.Skip("this machine has no address but loopback (a loopback server costs nothing)")
	}
	srv := fakeai.NewAt(t, ip+":0")
	srv.Handle(func(fakeai.Request) fakeai.Reply {
		return act(openBash)
	})
	home, dir := budgetSetup(t, "")
	env := testutil.ChildEnv(home, srv.URL, testKey, "OPENAI_MODEL=my-hosted-model")
	r := aciEnv(t, dir, env, "", "-p", "go", "--output-format", "json", "--max-budget-usd", "5")
	var res map[string]any
	json.Unmarshal([]byte(r.stdout), &res)
	wantLimit(t, r, res, "budget", "no price is known for my-hosted-model")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestBudgetTurnsPipe(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "first answer"})
	home, dir := budgetSetup(t, budgetPrices)
	r, res := budgetRun(t, srv, home, dir, "--max-turns", "1")
	if r.code != 0 || res["outcome"] != "answered" {
		t.Fatalf("first turn: exit %d result %v\nstderr %s", r.code, res, r.stderr)
	}
	// The resumed session has had its one turn: the question is not sent.
	r, res = budgetRun(t, srv, home, dir, "--resume", "--max-turns", "1")
	wantLimit(t, r, res, "turns", "this session has had 1 turn of 1")
	if n := len(srv.Requests()); n != 1 || res["num_steps"] != float64(0) {
		t.Errorf("%d requests, num_steps %v; want the second question unsent", n, res["num_steps"])
	}
	// Nothing of it entered the conversation: with room, it goes on.
	srv.Push(fakeai.Reply{Content: "second answer"})
	r, res = budgetRun(t, srv, home, dir, "--resume", "--max-turns", "2")
	if r.code != 0 || res["result"] != "second answer" {
		t.Fatalf("exit %d result %v\nstderr %s", r.code, res, r.stderr)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if n := strings.Count(mustJSON(last.Raw["messages"]), "keep going"); n != 2 {
		t.Errorf("the question appears %d times in the conversation, want 2 (the refused one left out)", n)
	}
}

// The same failing call again and again is stopped as a loop before any
// other limit, with the reason.
func TestBudgetLoopPipe(t *testing.T) {
	srv := fakeai.New(t)
	srv.Handle(func(fakeai.Request) fakeai.Reply {
		return act(call("file_7", "view", map[string]any{"line": 1}))
	})
	home, dir := budgetSetup(t, budgetPrices)
	r, res := budgetRun(t, srv, home, dir, "--max-steps", "10")
	wantLimit(t, r, res, "loop", "stopped a loop: the same failing call (file_7.view) 4 times in a row")
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
	if !strings.Contains(r.stderr, "stopped a loop") {
		t.Errorf("stderr does not say why:\n%s", r.stderr)
	}
}

func TestBudgetBadValues(t *testing.T) {
	for _, c := range []struct {
		settings string
		args     []string
		want     string
	}{
		{"", []string{"--max-budget-usd", "ten"}, `--max-budget-usd must be a number of US dollars, like 2.50, got "ten"`},
		{"", []string{"--max-budget-usd", "-1"}, "--max-budget-usd must be above 0"},
		{"", []string{"--max-turns", "1.5"}, "--max-turns must be a whole number"},
		{"", []string{"--max-turns", "0"}, "--max-turns must be at least 1"},
		{`"limits": {"max_budget_usd": "ten"}`, nil, "limits.max_budget_usd must be a number of US dollars"},
		{`"limits": {"max_turns": 2.5}`, nil, "limits.max_turns must be a whole number"},
	} {
		home, dir := budgetSetup(t, c.settings)
		srv := fakeai.New(t)
		env := testutil.ChildEnv(home, srv.URL, testKey)
		r := aciEnv(t, dir, env, "", append([]string{"-p", "q"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v %s: exit %d stderr %q", c.args, c.settings, r.code, r.stderr)
		}
		if len(srv.Requests()) != 0 {
			t.Errorf("a request was sent")
		}
	}
	// The serve and acp commands take the budgets too, checked alike.
	for _, cmd := range []string{"serve", "acp"} {
		r := aci(t, t.TempDir(), nil, "", nil, cmd, "--max-budget-usd", "lots")
		if r.code != 2 || !strings.Contains(r.stderr, "--max-budget-usd must be a number") {
			t.Errorf("aci %s: exit %d stderr %q", cmd, r.code, r.stderr)
		}
	}
}
