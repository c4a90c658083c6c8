//go:build unix

package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// recordOutput copies every byte aci writes to the pane into a file (what
// a terminal would get): a bell or an OSC 9 is seen there.
func (s *pane) recordOutput() func() string {
	s.t.Helper()
	path := filepath.Join(s.t.TempDir(), "pane.out")
	s.tmux("pipe-pane", "-o", "-t", "aci", "cat >> "+path)
	return func() string {
		b, _ := os.ReadFile(path)
		return string(b)
	}
}

var oscSeq = regexp.MustCompile("\x1b\\][^\a\x1b]*(\a|\x1b\\\\)")

// bells counts the BELs that are not the end of an OSC sequence.
func bells(out string) int { return strings.Count(oscSeq.ReplaceAllString(out, ""), "\a") }

// osc9 lists the OSC 9 notifications' texts.
func osc9(out string) []string {
	var texts []string
	for _, m := range regexp.MustCompile("\x1b\\]9;([^\a]*)\a").FindAllStringSubmatch(out, -1) {
		texts = append(texts, m[1])
	}
	return texts
}

// A turn ends, with ACI_NOTIFY as given; the threshold is 0 s unless
// minS says otherwise ("-" leaves the default, 10 s).
func notifyRun(t *testing.T, notify, minS string, replies ...fakeai.Reply) (*pane, func() string) {
	t.Helper()
	var env []string
	if notify != "" {
		env = append(env, "ACI_NOTIFY="+notify)
	}
	if minS != "-" {
		env = append(env, "ACI_NOTIFY_MIN_S="+minS)
	}
	srv := fakeai.New(t, replies...)
	s := startREPL(t, srv, env)
	out := s.recordOutput()
	s.waitPrompt()
	return s, out
}

func TestREPLNotifies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, notify, minS string
		bells              int
		osc9               []string
	}{
		{"auto rings on an unknown terminal", "", "0", 1, nil},
		{"bell", "bell", "0", 1, nil},
		{"osc9", "osc9", "0", 0, []string{"aci: done: the answer is **42**"}},
		{"off", "off", "0", 0, nil},
		{"a short turn under the default 10 s", "bell", "-", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, out := notifyRun(t, tc.notify, tc.minS, fakeai.Reply{Content: "the answer is **42**"})
			before := out()
			s.exchange("what is it", "the answer is")
			time.Sleep(300 * time.Millisecond) // pipe-pane copies as it goes
			got := strings.TrimPrefix(out(), before)
			if n := bells(got); n != tc.bells {
				t.Errorf("%d bells, want %d: %q", n, tc.bells, got)
			}
			if o := osc9(got); strings.Join(o, "|") != strings.Join(tc.osc9, "|") {
				t.Errorf("OSC 9 %q, want %q", o, tc.osc9)
			}
		})
	}
}

// A question waiting for the person notifies; with the terminal focused
// (it reports focus) nothing does, and once it loses focus again it does.
func TestREPLNotifiesAQuestionAndFollowsFocus(t *testing.T) {
	t.Parallel()
	target := filepath.Join(t.TempDir(), "out.txt")
	s, out := notifyRun(t, "osc9", "0", append(approvalReplies(target), fakeai.Reply{Content: "second"}, fakeai.Reply{Content: "third"})...)
	s.typeLine("write the file")
	s.waitFor("allow? ›")
	waitOut(t, out, "a question", func(o string) bool {
		return len(osc9(o)) == 1 && strings.HasPrefix(osc9(o)[0], "aci: a question waits: ")
	})
	s.typeLine("n") // answers take Enter
	s.waitFor("finished")
	s.waitPrompt()
	waitOut(t, out, "the turn's end", func(o string) bool { return len(osc9(o)) == 2 })

	s.keys("-H", "1b", "5b", "49") // ESC [ I: the terminal is focused
	s.exchange("again", "second")
	time.Sleep(300 * time.Millisecond)
	if n := len(osc9(out())); n != 2 {
		t.Errorf("notified while the terminal is focused: %q", osc9(out()))
	}
	if strings.Contains(s.screen(), "[I") {
		t.Errorf("the focus report reached the line:\n%s", s.screen())
	}
	s.keys("-H", "1b", "5b", "4f") // ESC [ O: focus lost
	s.typeLine("once more")
	s.waitFor("third")
	waitOut(t, out, "a notification once focus is lost", func(o string) bool { return len(osc9(o)) == 3 })
}

func waitOut(t *testing.T, out func() string, what string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !ok(out()) {
		if time.Now().After(deadline) {
			t.Fatalf("waited for %s; the terminal got %q", what, out())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A notification program gets one JSON object on stdin; one that hangs
// is a notice after 5 s, and the prompt comes back at once meanwhile.
func TestREPLNotifyProgram(t *testing.T) {
	t.Parallel()
	got := filepath.Join(t.TempDir(), "event.json")
	t.Run("receives the event", func(t *testing.T) {
		t.Parallel()
		s, _ := notifyRun(t, "cat > "+got, "0", fakeai.Reply{Content: "all done"})
		s.typeLine("go")
		s.waitFor("all done")
		deadline := time.Now().Add(waitLimit)
		var ev map[string]string
		for {
			data, _ := os.ReadFile(got)
			if json.Unmarshal(data, &ev) == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the program got %q", data)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if ev["event"] != "turn_end" || ev["text"] != "aci: done: all done" || len(ev["session_id"]) < 10 {
			t.Errorf("the program got %v", ev)
		}
	})
	t.Run("hangs", func(t *testing.T) {
		t.Parallel()
		s, _ := notifyRun(t, "sleep 60", "0", fakeai.Reply{Content: "quick answer"}, fakeai.Reply{Content: "next answer"})
		s.typeLine("go")
		start := time.Now()
		s.waitFor("quick answer")
		s.waitPrompt()
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("the turn waited for the program: %s", took)
		}
		// The prompt works while the program hangs.
		s.typeLine("and again")
		s.waitFor("next answer")
		s.waitFor("did not finish within 5s: ended it")
		if took := time.Since(start); took < 5*time.Second {
			t.Errorf("the notice came after %s, before the 5 s", took)
		}
	})
	t.Run("fails", func(t *testing.T) {
		t.Parallel()
		s, _ := notifyRun(t, "echo no display >&2; exit 3", "0", fakeai.Reply{Content: "fine"})
		s.typeLine("go")
		s.waitFor("fine")
		s.waitFor("failed: exit status 3: no display")
	})
}
