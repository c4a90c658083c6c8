package ui

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/internal/dirs"
)

const (
	historyLimit    = 1000     // entries kept
	historyEntryMax = 16 << 10 // bytes; a bigger message (a huge paste) is not kept
	// newlineMark stands for a newline inside one history entry: the file
	// holds one entry a line, and readline edits one line. It is turned back
	// into a newline when the entry is sent again.
	newlineMark = "␤"
)

// history is the persistent input history: one entry a line, the oldest
// first, readable only by its owner, consecutive duplicates dropped.
type history struct {
	path    string // "" when the history is not saved
	entries []string
}

// historyPath is the input history of the project holding workdir (its
// git root, or workdir itself): $XDG_STATE_HOME/aci/histories/NAME-HASH,
// or the same under ~/.local/state.
func historyPath(workdir string) (string, error) {
	state, err := dirs.State()
	if err != nil {
		return "", err
	}
	root := projectRoot(workdir)
	sum := sha256.Sum256([]byte(root))
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r < 0x20 {
			return '_'
		}
		return r
	}, filepath.Base(root))
	return filepath.Join(state, "histories", name+"-"+hex.EncodeToString(sum[:6])), nil
}

// seedHistory starts a project's history file from the one history all
// projects shared before (…/aci/history), so an upgrade loses nothing.
func seedHistory(path string) {
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return
	}
	legacy := filepath.Join(filepath.Dir(filepath.Dir(path)), "history")
	data, err := os.ReadFile(legacy)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) == nil {
		_ = os.WriteFile(path, data, 0o600)
	}
}

// projectRoot is the git root above dir, or dir.
func projectRoot(dir string) string {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// openHistory loads the history at path. On error the returned history
// still works, in memory only.
func openHistory(path string) (*history, error) {
	h := &history{}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return h, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return h, err
	}
	defer f.Close()
	// An older file, or one a person created, may be readable by others.
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm() != 0o600 {
		if err := os.Chmod(path, 0o600); err != nil {
			return h, err
		}
	}
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), historyEntryMax*4)
	for sc.Scan() {
		lines++
		h.push(sc.Text())
	}
	if err := sc.Err(); err != nil {
		return h, err
	}
	h.path = path
	// Appends from many sessions grow the file; trim it now and then.
	if lines > 2*historyLimit {
		if err := h.rewrite(); err != nil {
			return h, err
		}
	}
	return h, nil
}

// push adds an entry in memory, dropping a repeat of the last one.
func (h *history) push(entry string) bool {
	if strings.TrimSpace(entry) == "" || len(entry) > historyEntryMax {
		return false
	}
	if n := len(h.entries); n > 0 && h.entries[n-1] == entry {
		return false
	}
	h.entries = append(h.entries, entry)
	if len(h.entries) > historyLimit {
		h.entries = append([]string(nil), h.entries[len(h.entries)-historyLimit:]...)
	}
	return true
}

// Add records a sent message and appends it to the file.
func (h *history) Add(msg string) error {
	entry := encodeEntry(msg)
	if !h.push(entry) || h.path == "" {
		return nil
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(entry + "\n")
	return errors.Join(err, f.Close())
}

// rewrite replaces the file with the entries in memory, atomically.
func (h *history) rewrite() error {
	tmp, err := os.CreateTemp(filepath.Dir(h.path), ".history-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	for _, e := range h.entries {
		w.WriteString(e + "\n")
	}
	err = errors.Join(w.Flush(), tmp.Chmod(0o600), tmp.Close())
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), h.path)
}

// encodeEntry turns a message into one history line.
func encodeEntry(msg string) string {
	msg = strings.ReplaceAll(msg, "\r\n", "\n")
	return strings.ReplaceAll(msg, "\n", newlineMark)
}

// decodeEntry turns an edited line back into the message it stands for.
func decodeEntry(line string) string { return strings.ReplaceAll(line, newlineMark, "\n") }
