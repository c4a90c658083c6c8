package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/windows"
)

// A scripted session: the model's replies, in order, and the question.
type scriptedSession struct {
	name     string
	question string
	files    int // 300-line files calc/f1.go … in the workspace
	replies  []string
	// env, when set, adds to the windows' environment (economy_lsp_test.go).
	env func(tb testing.TB, dir string, env *windows.Env)
}

func call(w, a string, p map[string]any) fakeai.Call {
	return fakeai.Call{Window: w, Action: a, Params: p}
}

func openCall(app, target string) fakeai.Call {
	return call("launcher", "open", map[string]any{"app": app, "target": target})
}

func editCall(file, k int) fakeai.Call {
	return call(fmt.Sprintf("file_%d", file), "edit", map[string]any{
		"old_text": fmt.Sprintf("return x + %d // step", k*50), "new_text": fmt.Sprintf("return x + %d // fixed", k*50)})
}

func viewCall(file, from, to int) fakeai.Call {
	return call(fmt.Sprintf("file_%d", file), "view", map[string]any{"start_line": from, "end_line": to})
}

var testRun = call("bash_1", "run", map[string]any{"command": "go test ./..."})

// tenSteps opens a 300-line file, views two regions, edits it five
// times, runs the tests three times, and answers.
func tenSteps() scriptedSession {
	return scriptedSession{name: "10-step", files: 1,
		question: "The helpers at multiples of 50 add the wrong offset; fix them and make sure the tests pass.",
		replies: []string{
			"I'll look at the code and the tests.\n" + fakeai.ToolCall(openCall("file", "calc/f1.go"), openCall("bash", "")),
			fakeai.ToolCall(viewCall(1, 40, 70)),
			fakeai.ToolCall(viewCall(1, 150, 180)),
			"The helpers use the wrong offset.\n" + fakeai.ToolCall(editCall(1, 1)),
			fakeai.ToolCall(editCall(1, 2), testRun),
			fakeai.ToolCall(editCall(1, 3)),
			fakeai.ToolCall(editCall(1, 4), testRun),
			fakeai.ToolCall(editCall(1, 5)),
			fakeai.ToolCall(testRun),
			"Fixed the five helpers' offsets; go test passes.",
		}}
}

// fiveFiles reads five 300-line files, edits two, runs the tests twice and
// never closes a window.
func fiveFiles() scriptedSession {
	s := scriptedSession{name: "5-files", files: 5,
		question: "Find the helper with the wrong offset in calc and fix it; run the tests."}
	s.replies = append(s.replies, "Let me read the package.\n"+fakeai.ToolCall(openCall("file", "calc/f1.go"), openCall("bash", "")))
	for f := 2; f <= 5; f++ {
		s.replies = append(s.replies, fakeai.ToolCall(openCall("file", fmt.Sprintf("calc/f%d.go", f))))
	}
	s.replies = append(s.replies,
		"f1 and f3 have it.\n"+fakeai.ToolCall(editCall(1, 1)),
		fakeai.ToolCall(editCall(3, 1), testRun),
		fakeai.ToolCall(testRun),
		"Fixed the offsets in f1.go and f3.go; the tests pass.")
	return s
}

// fiveInView is the held-out ten-step task: it reads five 300-line files
// whole and keeps them in view to its end, edits two, runs the tests twice
// and answers. Its requests outgrow any fixed cap on renderings.
func fiveInView() scriptedSession {
	s := scriptedSession{name: "5-files-in-view", files: 5,
		question: "Find the helpers with the wrong offset in calc and fix them; run the tests."}
	s.replies = append(s.replies, "Let me read the package.\n"+fakeai.ToolCall(openCall("file", "calc/f1.go"), viewCall(1, 1, 300), openCall("bash", "")))
	for f := 2; f <= 5; f++ {
		s.replies = append(s.replies, fakeai.ToolCall(openCall("file", fmt.Sprintf("calc/f%d.go", f)), viewCall(f, 1, 300)))
	}
	s.replies = append(s.replies,
		"f1 and f3 have it.\n"+fakeai.ToolCall(editCall(1, 1)),
		fakeai.ToolCall(editCall(3, 1), testRun),
		fakeai.ToolCall(editCall(3, 2)),
		fakeai.ToolCall(testRun),
		"Fixed the offsets in f1.go and f3.go; the tests pass.")
	return s
}

// fiveInViewNarrowed reads the same five files whole, then narrows two of
// them to the helper it edits: the whole renderings of those two are
// superseded, a quarter of each request from then on.
func fiveInViewNarrowed() scriptedSession {
	s := fiveInView()
	s.name = "5-files-in-view, two narrowed"
	s.replies = append(s.replies[:5:5],
		"f1 and f3 have it.\n"+fakeai.ToolCall(viewCall(1, 40, 60), viewCall(3, 40, 60), editCall(1, 1)),
		fakeai.ToolCall(editCall(3, 1), testRun),
		fakeai.ToolCall(editCall(3, 2)),
		fakeai.ToolCall(testRun),
		"Fixed the offsets in f1.go and f3.go; the tests pass.")
	return s
}

// fiftySteps works through eight files: each is opened, viewed in two
// places, edited twice and tested; every other file is closed when done.
func fiftySteps() scriptedSession {
	s := scriptedSession{name: "50-step", files: 8,
		question: "Every helper at a multiple of 50 in calc has the wrong offset; fix them all, file by file, testing as you go."}
	s.replies = append(s.replies, "I'll start with a shell.\n"+fakeai.ToolCall(openCall("bash", "")))
	for f := 1; f <= 8; f++ {
		s.replies = append(s.replies,
			fmt.Sprintf("Now f%d.go.\n", f)+fakeai.ToolCall(openCall("file", fmt.Sprintf("calc/f%d.go", f))),
			fakeai.ToolCall(viewCall(f, 90, 130)),
			fakeai.ToolCall(editCall(f, 1)),
			fakeai.ToolCall(viewCall(f, 180, 220)),
			fakeai.ToolCall(editCall(f, 4), testRun))
		if f%2 == 0 {
			s.replies = append(s.replies, fakeai.ToolCall(call(fmt.Sprintf("file_%d", f-1), "close", nil), testRun))
		}
	}
	for len(s.replies) < 49 {
		s.replies = append(s.replies, fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "go vet ./..."})))
	}
	s.replies = append(s.replies, "All sixteen offsets are fixed; go test passes.")
	return s
}

// economyWorkspace writes the session's files and a fake `go` on PATH that
// prints a realistic test report.
func economyWorkspace(tb testing.TB, files int) string {
	dir := tb.TempDir()
	os.MkdirAll(filepath.Join(dir, "calc"), 0o755)
	for f := 1; f <= files; f++ {
		var b strings.Builder
		b.WriteString("package calc\n\n")
		for i := 1; i <= 298; i++ {
			if i%50 == 0 {
				fmt.Fprintf(&b, "func f%dHelper%d(x int) int { return x + %d // step\n", f, i, i)
			} else {
				fmt.Fprintf(&b, "func f%dHelper%d(x int) int { return x + %d }\n", f, i, i)
			}
		}
		os.WriteFile(filepath.Join(dir, "calc", fmt.Sprintf("f%d.go", f)), []byte(b.String()), 0o644)
	}
	bin := filepath.Join(dir, ".bin")
	os.MkdirAll(bin, 0o755)
	script := "#!/bin/sh\nfor i in $(seq 1 12); do echo \"=== RUN   TestHelper$i\"; echo \"--- PASS: TestHelper$i (0.00s)\"; done\necho PASS\necho 'ok  \tcalc\t0.004s'\n"
	os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755)
	tb.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	return dir
}
