package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// economySession is a scripted 10-step coding session: open a 300-line
// file, view two regions, edit it five times, run the tests three times,
// answer. Each entry is one model reply.
func economySession() []string {
	c := func(w, a string, p map[string]any) fakeai.Call { return fakeai.Call{Window: w, Action: a, Params: p} }
	edit := func(i int) fakeai.Call {
		return c("file_1", "edit", map[string]any{"old_text": fmt.Sprintf("return x + %d // step", i*50), "new_text": fmt.Sprintf("return x + %d // fixed", i*50)})
	}
	run := c("bash_1", "run", map[string]any{"command": "go test ./..."})
	return []string{
		"I'll look at the code and the tests.\n" + fakeai.ToolCall(c("launcher", "open", map[string]any{"app": "file", "target": "calc/calc.go"}), c("launcher", "open", map[string]any{"app": "bash"})),
		fakeai.ToolCall(c("file_1", "view", map[string]any{"start_line": 40, "end_line": 70})),
		fakeai.ToolCall(c("file_1", "view", map[string]any{"start_line": 150, "end_line": 180})),
		"The helpers use the wrong offset.\n" + fakeai.ToolCall(edit(1)),
		fakeai.ToolCall(edit(2), run),
		fakeai.ToolCall(edit(3)),
		fakeai.ToolCall(edit(4), run),
		fakeai.ToolCall(edit(5)),
		fakeai.ToolCall(run),
		"Fixed the five helpers' offsets; go test passes.",
	}
}

// economyWorkspace writes a Go package whose 300-line file the session edits
// and a fake `go` on PATH that prints a realistic test report.
func economyWorkspace(tb testing.TB) string {
	dir := tb.TempDir()
	os.MkdirAll(filepath.Join(dir, "calc"), 0o755)
	var b strings.Builder
	b.WriteString("package calc\n\n")
	for i := 1; b.Len() < 1<<20 && strings.Count(b.String(), "\n") < 298; i++ {
		if i%50 == 0 {
			fmt.Fprintf(&b, "func helper%d(x int) int { return x + %d // step\n", i, i)
		} else {
			fmt.Fprintf(&b, "func helper%d(x int) int { return x + %d }\n", i, i)
		}
	}
	os.WriteFile(filepath.Join(dir, "calc", "calc.go"), []byte(b.String()), 0o644)
	bin := filepath.Join(dir, ".bin")
	os.MkdirAll(bin, 0o755)
	script := "#!/bin/sh\nfor i in $(seq 1 12); do echo \"=== RUN   TestHelper$i\"; echo \"--- PASS: TestHelper$i (0.00s)\"; done\necho PASS\necho 'ok  \tcalc\t0.004s'\n"
	os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755)
	tb.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	return dir
}

type economy struct {
	total, naive int
	prefix       float64 // mean share of each request repeating the previous one's start
	// prefixHistory is the same share of each request without its windows
	// block: how much of the system + history part a prompt cache can reuse.
	prefixHistory float64
}

// runEconomy plays the session through the real agent and measures it.
func runEconomy(tb testing.TB) economy {
	dir := economyWorkspace(tb)
	replies := economySession()
	srv := fakeai.New(tb)
	for _, r := range replies {
		srv.Push(fakeai.Reply{Content: r})
	}
	wm := windows.NewManager(windows.Env{Workdir: dir}, windows.FileApp, windows.BashApp, windows.WebApp)
	defer wm.CloseAll()
	client := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "k", Model: "gpt-5-mini", Stream: true})
	hints := prompt.Hints{Workdir: dir, OS: "linux/amd64", Date: "2026-11-22"}
	var results [][]protocol.Result
	a := New(client, wm, Config{BasePrompt: readSystemPrompt(tb), Hints: hints}, func(e Event) {
		if e.Kind == EventCall && e.Call.ID == fmt.Sprintf("call_%d_1", len(results)+1) {
			results = append(results, nil)
		}
		if e.Kind == EventResult {
			results[len(results)-1] = append(results[len(results)-1], e.Result)
		}
	})
	if _, err := a.Run(context.Background(), "The helpers at multiples of 50 add the wrong offset; fix them and make sure the tests pass."); err != nil {
		tb.Fatal(err)
	}
	reqs := srv.Requests()
	var e economy
	var fractions, historyFractions float64
	for i, r := range reqs {
		e.total += len(r.Body)
		if testing.Verbose() {
			m := r.Messages
			fmt.Printf("req %d: %d bytes, system %d, windows %d\n", i+1, len(r.Body), len(m[0].Content), len(m[len(m)-1].Content))
		}
		if i > 0 {
			common := float64(commonPrefix(reqs[i-1].Body, r.Body))
			fractions += common / float64(len(r.Body))
			m := r.Messages
			historyFractions += common / float64(len(r.Body)-len(m[len(m)-1].Content))
		}
	}
	e.prefix = fractions / float64(len(reqs)-1)
	e.prefixHistory = historyFractions / float64(len(reqs)-1)
	e.naive = naiveBytes(dir, reqs, results, replies)
	return e
}

// naiveBytes is what the same steps cost an agent that appends every tool
// output to its history and sends no windows, with the outputs common
// agents return: a read returns the whole numbered file, a view the lines
// asked for, an edit its confirmation and a snippet of the edited lines, a
// command its output.
func naiveBytes(dir string, reqs []fakeai.Request, results [][]protocol.Result, replies []string) int {
	file := filepath.Join(dir, "calc", "calc.go")
	lines := func(from, to int) string {
		data, _ := os.ReadFile(file)
		all := strings.Split(string(data), "\n")
		var b strings.Builder
		for i := max(from, 1); i <= min(to, len(all)); i++ {
			fmt.Fprintf(&b, "%6d\t%s\n", i, all[i-1])
		}
		return b.String()
	}
	first := reqs[0].Messages
	history := len(first[0].Content) + len(first[1].Content) + 100
	total := 0
	for i := range reqs {
		total += history
		if i == len(reqs)-1 {
			break
		}
		history += len(replies[i]) + 40
		for _, res := range results[i] {
			out := res.Text
			switch {
			case res.WindowID == "launcher" && strings.Contains(out, "file_"):
				out = lines(1, 2000)
			case res.ActionID == "view":
				var a, b int
				fmt.Sscanf(out, "viewport at lines %d-%d", &a, &b)
				out = lines(a, b)
			case res.ActionID == "edit":
				var at int
				if j := strings.Index(out, "line "); j >= 0 {
					fmt.Sscanf(out[j:], "line %d", &at)
				}
				out += "\n" + lines(at-4, at+4)
			case res.ActionID == "run":
				out = windowRunOutput(reqs[i+1].Messages)
			}
			history += len(out) + 120
		}
	}
	return total
}

// windowRunOutput is what bash_1 showed after the batch: the command's output.
func windowRunOutput(msgs []fakeai.Message) string {
	block := msgs[len(msgs)-1].Content
	start := strings.Index(block, `<window id="bash_1"`)
	rest := block[start:]
	return rest[:strings.Index(rest, "<actions>")]
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func TestTokenEconomyTargets(t *testing.T) {
	e := runEconomy(t)
	t.Logf("total %d bytes, naive %d bytes (%.2f), prefix reuse %.3f (%.3f of the part before the windows block)", e.total, e.naive, float64(e.total)/float64(e.naive), e.prefix, e.prefixHistory)
	if e.total*2 > e.naive {
		t.Errorf("the session sent %d bytes, more than half the naive baseline's %d", e.total, e.naive)
	}
}

// BenchmarkTokenEconomy reports the session's request bytes, the naive
// baseline's, and the mean prefix reuse between consecutive requests.
func BenchmarkTokenEconomy(b *testing.B) {
	var e economy
	for b.Loop() {
		e = runEconomy(b)
	}
	b.ReportMetric(float64(e.total), "request-bytes")
	b.ReportMetric(float64(e.naive), "naive-bytes")
	b.ReportMetric(float64(e.total)/float64(e.naive), "ratio")
	b.ReportMetric(e.prefix, "prefix-reuse")
	b.ReportMetric(e.prefixHistory, "prefix-reuse-before-windows")
}
