package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTranscriptIsCreatedLazily(t *testing.T) {
	dir := t.TempDir()
	tr, err := newTestLog(dir, "/work", "m", "sk-secret-key")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Write(Record{Type: "reset"}); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(files) != 0 {
		t.Fatalf("an empty session left %v", files)
	}

	tr, _ = newTestLog(dir, "/work", "m", "sk-secret-key")
	tr.Write(Record{Type: "message", Role: "user", Content: "hello sk-secret-key"})
	tr.Close()
	data, err := os.ReadFile(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"type":"meta"`) || strings.Contains(string(data), "sk-secret-key") {
		t.Errorf("transcript:\n%s", data)
	}
	if fi, _ := os.Stat(tr.Path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}

// writeSession writes a transcript named id for workdir with questions.
func writeSession(t *testing.T, dir, id, workdir string, questions ...string) {
	t.Helper()
	recs := []Record{{Type: "meta", Workdir: workdir, Time: "2026-01-02T03:04:05Z"}}
	for i, q := range questions {
		recs = append(recs, Record{Type: "message", Role: "user", Content: q}, Record{Type: "message", Role: "assistant", Content: "answer " + q, Turn: i + 1})
	}
	if len(questions) == 0 {
		recs = append(recs, Record{Type: "windows"})
	}
	var b []byte
	for _, r := range recs {
		line, _ := json.Marshal(r)
		b = append(append(b, line...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestListFindAndLatestSessions(t *testing.T) {
	dir := t.TempDir()
	writeSession(t, dir, "20260101-000000-aaaa", "/work", "first question", "second")
	writeSession(t, dir, "20260102-000000-bbbb", "/work", "newer question")
	writeSession(t, dir, "20260103-000000-cccc", "/work") // opened, nothing asked
	writeSession(t, dir, "20260104-000000-dddd", "/elsewhere", "not mine")

	list, err := ListSessions(dir, "/work")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, fmt.Sprintf("%s:%d", s.ID, s.Questions))
	}
	if got := strings.Join(ids, " "); got != "20260103-000000-cccc:0 20260102-000000-bbbb:1 20260101-000000-aaaa:2" {
		t.Errorf("list: %s", got)
	}
	if len(list[2].Asked) != 2 || list[2].Asked[0].Text != "first question" || list[2].Started.IsZero() {
		t.Errorf("questions %+v, started %v", list[2].Asked, list[2].Started)
	}

	latest, err := LatestSession(dir, "/work")
	if err != nil || latest.ID != "20260102-000000-bbbb" {
		t.Errorf("latest skips the empty session: %s %v", latest.ID, err)
	}
	for _, tc := range []struct{ id, want, err string }{
		{"20260101-000000-aaaa", "20260101-000000-aaaa", ""},
		{"20260101-000000-aaaa.jsonl", "20260101-000000-aaaa", ""},
		{"20260101", "20260101-000000-aaaa", ""},
		{"2026010", "", "ambiguous"},
		{"20260104-000000-dddd", "", "no session"},
		{"../x", "", "bad session id"},
	} {
		s, err := FindSession(dir, "/work", tc.id)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("FindSession(%q): %v, want %q", tc.id, err, tc.err)
			}
			continue
		}
		if err != nil || s.ID != tc.want {
			t.Errorf("FindSession(%q) = %s, %v", tc.id, s.ID, err)
		}
	}
	// Written with no event records: its conversation's records are kept
	// for the session to make its events of (session/eventlog_old.go).
	if legacy := list[2].Legacy; len(legacy) != 4 || legacy[1].Role != "assistant" || legacy[1].Content != "answer first question" {
		t.Errorf("records kept: %+v", legacy)
	}
}
