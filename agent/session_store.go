package agent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The store of transcripts: one folder of JSON-lines files, named by the
// time they were made, listed per working directory and pruned to the
// newest few.

// ListSessions replays every transcript of workdir in dir, newest first.
func ListSessions(dir, workdir string) ([]Session, error) {
	names, err := sessionFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []Session
	for _, name := range names {
		s, wd, err := replay(filepath.Join(dir, name))
		if err == nil && wd == workdir {
			out = append(out, s)
		}
	}
	// Names sort by the second a session started; within one second its
	// meta record's time decides.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}

// sessionFiles are the transcript names in dir, newest first (names start
// with the time they were made).
func sessionFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jsonl") && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	return names, nil
}

// pruneSessions removes the transcripts of workdir beyond the newest keep.
// Other directories' transcripts are left alone.
func pruneSessions(dir, workdir string, keep int) {
	names, err := sessionFiles(dir)
	if err != nil || len(names) <= keep {
		return // no directory can have more than keep: nothing to open
	}
	n := 0
	for _, name := range names {
		path := filepath.Join(dir, name)
		if wd, _ := metaWorkdir(path); wd != workdir {
			continue
		}
		if n++; n > keep {
			os.Remove(path)
			os.Remove(ownerPath(path))
		}
	}
}

// metaWorkdir reads the working directory from a transcript's first line.
func metaWorkdir(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4<<10), 1<<20)
	if !sc.Scan() {
		return "", fmt.Errorf("%s is empty", path)
	}
	var r Record
	if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Type != "meta" {
		return "", fmt.Errorf("%s has no meta record", path)
	}
	return r.Workdir, nil
}
