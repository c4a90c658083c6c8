package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aci-dev/aci/tools/imagefile"
	"github.com/aci-dev/aci/transcript"
	"github.com/aci-dev/aci/windows"
)

// render is a window's element as the views make it.
func render(id, body string) element {
	return element{ID: id, Text: fmt.Sprintf("<window id=%q>\n%s\n</window>", id, body)}
}

// elementHistories are conversations whose windows are shown again as
// written before: the last text, an earlier one, one beyond what a
// reference reaches, an empty one, and one with a picture.
func elementHistories() map[string][]entry {
	file, bash := render("file_1", "one"), render("bash_1", "$ ls")
	var many []entry
	for i := range keptTexts + 2 {
		many = append(many, entry{Role: "user", Text: "<tool_results/>", Elements: []element{render("file_1", fmt.Sprint("version ", i))}})
	}
	many = append(many, entry{Role: "user", Text: "q", Elements: []element{render("file_1", "version 0"), render("file_1", fmt.Sprint("version ", keptTexts+1))}})
	pic := render("image_1", "a picture")
	pic.Image = &imagefile.Image{Name: "a.png", MIME: "image/png", Data: []byte("png bytes")}
	return map[string][]entry{
		"shown again after a resume": {
			{Role: "user", Text: "first", Elements: []element{render("launcher", "apps"), file}},
			{Role: "assistant", Text: "ok"},
			{Role: "user", Text: "second", Elements: []element{render("launcher", "apps"), file, bash}},
		},
		"an earlier text": {
			{Role: "user", Text: "a", Elements: []element{bash}},
			{Role: "user", Text: "b", Elements: []element{render("bash_1", "$ ls\nREADME.md")}},
			{Role: "user", Text: "c", Elements: []element{bash, {ID: "bash_1", Text: "", Full: true}, {ID: "bash_1", Full: true}}},
		},
		"beyond the kept texts": many,
		"a picture":             {{Role: "user", Text: "look", Elements: []element{pic}}, {Role: "user", Text: "again", Elements: []element{pic, file}}},
	}
}

// writeHistory writes a first turn's event, then h as message records,
// to a new transcript in dir.
func writeHistory(t *testing.T, dir string, h []entry) *testLog {
	t.Helper()
	tr, err := newTestLog(dir, "/w", "m", "")
	if err != nil {
		t.Fatal(err)
	}
	tr.WriteEvent(1, []byte(`{"type":"turn","turn":1,"question":""}`))
	for _, e := range h {
		if err := tr.Write(Record{Type: "message", Role: e.Role, Content: e.Text, Elements: e.Elements, Images: e.Images}); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// A window shown again as written before is stored as a reference and
// read back exactly: the model gets the same messages after a resume.
func TestElementsReadBackExactly(t *testing.T) {
	for name, h := range elementHistories() {
		t.Run(name, func(t *testing.T) {
			want := cloneEntries(h)
			tr := writeHistory(t, t.TempDir(), h)
			tr.Close()
			if !reflect.DeepEqual(h, want) {
				t.Fatal("writing changed the live history")
			}
			s, _, err := replay(tr.Path)
			if err != nil || s.Damaged != 0 {
				t.Fatalf("replay: %v, %d damaged", err, s.Damaged)
			}
			if !reflect.DeepEqual(s.History, want) {
				t.Errorf("read back\n%+v\nwritten\n%+v", s.History, want)
			}
			data, _ := os.ReadFile(tr.Path)
			if !strings.Contains(string(data), `"same":`) {
				t.Errorf("no reference written:\n%s", data)
			}
		})
	}
}

// A transcript reopened to go on (--resume) refers to what was written
// before it was closed, a rewrite (a rebase) to what precedes it, and a
// branch copies references its reader resolves; each reads back exactly.
func TestReferencesAcrossResumeRewriteAndFork(t *testing.T) {
	dir := t.TempDir()
	h := elementHistories()["shown again after a resume"]
	tr := writeHistory(t, dir, h)
	tr.Close()
	id := strings.TrimSuffix(filepath.Base(tr.Path), ".jsonl")

	f, st, err := ResumeSession(dir, "/w", id, "")
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecordLog(f, st) // as SetTranscript makes it after Restore(st)
	again := entry{Role: "user", Text: "third", Elements: []element{render("launcher", "apps"), render("file_1", "one"), render("bash_1", "$ ls")}}
	f.WriteEvent(2, []byte(`{"type":"turn","turn":2,"question":""}`))
	rec.write(Record{Type: "message", Role: again.Role, Content: again.Text, Elements: again.Elements})
	rewritten := append(cloneEntries(h), again)
	rec.write(Record{Type: "rewrite", History: rewritten})
	f.WriteEvent(3, []byte(`{"type":"turn","turn":3,"question":""}`))
	f.Close()
	if len(st.History) != len(h) {
		t.Fatalf("resumed with %d messages", len(st.History))
	}
	lines := strings.Split(strings.TrimSpace(string(must(os.ReadFile(tr.Path)))), "\n")
	if last := lines[len(lines)-3]; strings.Contains(last, "<window") {
		t.Errorf("the resumed writer wrote the windows again: %s", last)
	}
	s, _, err := replay(tr.Path)
	if err != nil || s.Damaged != 0 || !reflect.DeepEqual(s.History, rewritten) {
		t.Fatalf("after resume and rewrite (%v, %d damaged)\n%+v", err, s.Damaged, s.History)
	}

	fork, fs, err := ForkTranscript(dir, tr.Path, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	newRecordLog(fork, fs).write(Record{Type: "message", Role: "user", Content: "on the branch", Elements: again.Elements})
	fork.Close()
	if !reflect.DeepEqual(fs.History, rewritten) {
		t.Errorf("the branch's history\n%+v", fs.History)
	}
	b, _, err := replay(fork.Path)
	if want := append(rewritten, entry{Role: "user", Text: "on the branch", Elements: again.Elements}); err != nil || b.Damaged != 0 || !reflect.DeepEqual(b.History, want) {
		t.Errorf("the branch read back (%v, %d damaged)\n%+v", err, b.Damaged, b.History)
	}
}

// A windows record is written only when the list changed; a reset
// forgets it, as its reader does.
func TestWindowsWrittenWhenChanged(t *testing.T) {
	one := []windows.WindowState{{ID: "file_1", App: "file", Target: "a.go"}}
	two := append(append([]windows.WindowState(nil), one...), windows.WindowState{ID: "bash_1", App: "bash", Target: "/w"})
	tr, err := newTestLog(t.TempDir(), "/w", "m", "")
	if err != nil {
		t.Fatal(err)
	}
	tr.Write(Record{Type: "message", Role: "user", Content: "q"})
	for _, w := range [][]windows.WindowState{nil, one, one, two, two, one} {
		tr.Write(Record{Type: "windows", Windows: w})
	}
	s, _, _ := replay(tr.Path)
	if !reflect.DeepEqual(s.Windows, one) {
		t.Errorf("windows %+v", s.Windows)
	}
	tr.Write(Record{Type: "reset"})
	tr.Write(Record{Type: "windows", Windows: one})
	tr.Close()
	s, _, _ = replay(tr.Path)
	if got := strings.Count(string(must(os.ReadFile(tr.Path))), `"type":"windows"`); got != 4 || !reflect.DeepEqual(s.Windows, one) {
		t.Errorf("%d windows records, windows %+v", got, s.Windows)
	}
}

// A transcript today's main wrote (turn, call and answer records beside
// the events, every state event, every window written whole at each
// question) loads as the same transcript written as aci writes it now:
// the same history byte for byte, questions, windows, events (but the
// states within a turn) and branches; and the new one is smaller.
func TestTranscriptOfMainLoadsTheSame(t *testing.T) {
	data, err := os.ReadFile("testdata/main-2026-12.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir, work := t.TempDir(), t.TempDir()
	data = []byte(strings.ReplaceAll(string(data), "/WORKDIR", work))
	oldPath := filepath.Join(dir, "20261208-022901-e9d8aa8a.jsonl")
	os.WriteFile(oldPath, data, 0o600)
	old, _, err := replay(oldPath)
	if err != nil {
		t.Fatal(err)
	}

	tr, err := newTestLog(t.TempDir(), work, "bench-model", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Type == "meta", r.Type == "turn", r.Type == "call", r.Type == "answer":
		case r.Type == "event":
			if transcript.EventType(r.Event) == "state" && !strings.Contains(string(r.Event), `"idle"`) {
				continue
			}
			tr.WriteEvent(r.ID, r.Event)
		default:
			tr.Write(r)
		}
	}
	tr.Close()
	now, _, err := replay(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	if old.Damaged+now.Damaged != 0 || len(old.Asked) != 2 || len(old.History) == 0 {
		t.Fatalf("old: %d questions, %d messages, %d damaged; now %d damaged", len(old.Asked), len(old.History), old.Damaged, now.Damaged)
	}
	for _, c := range []struct {
		what      string
		old, want any
	}{
		{"history", old.History, now.History},
		{"questions", old.Asked, now.Asked},
		{"count", old.Questions, now.Questions},
		{"windows", old.Windows, now.Windows},
		{"turn", old.Turn, now.Turn},
		{"last id", old.LastEventID, now.LastEventID},
		{"events", withoutStates(old.Events), now.Events},
	} {
		if !reflect.DeepEqual(c.old, c.want) {
			t.Errorf("%s: old\n%+v\nnow\n%+v", c.what, c.old, c.want)
		}
	}
	if len(old.Legacy)+len(now.Legacy) != 0 {
		t.Errorf("older records kept: %d, %d", len(old.Legacy), len(now.Legacy))
	}
	for turn := range 3 {
		_, a, err1 := forkTranscript(t.TempDir(), oldPath, turn, "")
		_, b, err2 := forkTranscript(t.TempDir(), tr.Path, turn, "")
		if err1 != nil || err2 != nil || !reflect.DeepEqual(a.History, b.History) || len(a.Asked) != turn || len(b.Asked) != turn {
			t.Errorf("branch at turn %d: %v %v, %d and %d questions", turn, err1, err2, len(a.Asked), len(b.Asked))
		}
	}
	oldSize, newSize := len(data), len(must(os.ReadFile(tr.Path)))
	if newSize*4 > oldSize*3 {
		t.Errorf("written now %d bytes, by main %d", newSize, oldSize)
	}
}

// withoutStates is evs without the state events a turn goes through.
func withoutStates(evs []transcript.StoredEvent) []transcript.StoredEvent {
	var out []transcript.StoredEvent
	for _, e := range evs {
		if e.Type != "state" || strings.Contains(string(e.Data), `"idle"`) {
			out = append(out, e)
		}
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
