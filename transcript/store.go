package transcript

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aci-dev/aci/internal/dirs"
)

// The store of transcripts: one folder of JSON-lines files, named by the
// time they were made, listed per working directory and pruned to the
// newest few.

// keptSessions is how many transcripts of one working directory are kept.
const keptSessions = 100

// Dir is where transcripts live: sessions in aci's state folder
// (internal/dirs: $XDG_STATE_HOME/aci/sessions, or
// ~/.local/state/aci/sessions).
func Dir() (string, error) {
	state, err := dirs.State()
	if err != nil {
		return "", fmt.Errorf("find the state folder: %w", err)
	}
	return filepath.Join(state, "sessions"), nil
}

// Files are the transcript names in dir, newest first (names start with
// the time they were made).
func Files(dir string) ([]string, error) {
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

// prune removes the transcripts of workdir beyond the newest keep.
// Other directories' transcripts are left alone.
func prune(dir, workdir string, keep int) {
	names, err := Files(dir)
	if err != nil || len(names) <= keep {
		return // no directory can have more than keep: nothing to open
	}
	n := 0
	for _, name := range names {
		path := filepath.Join(dir, name)
		if wd, _ := Workdir(path); wd != workdir {
			continue
		}
		if n++; n > keep {
			os.Remove(path)
			os.Remove(ownerPath(path))
		}
	}
}

// Workdir reads the working directory from a transcript's first line.
func Workdir(path string) (string, error) {
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
	var r metaRecord
	if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Type != "meta" {
		return "", fmt.Errorf("%s has no meta record", path)
	}
	return r.Workdir, nil
}
