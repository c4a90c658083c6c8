package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrLocked is a transcript another aci process is writing: two writers
// would interleave their records (docs/protocol.md §7, 409).
var ErrLocked = errors.New("the session is being written by another aci process")

// LockedError names the session and, when it can be told, the process
// that writes it.
type LockedError struct {
	ID      string
	PID     int
	Command string
}

func (e *LockedError) Error() string {
	who := "another aci process"
	if e.PID > 0 {
		who = fmt.Sprintf("another aci process (pid %d", e.PID)
		if e.Command != "" {
			who += ": " + e.Command
		}
		who += ")"
	}
	return fmt.Sprintf("session %s is being written by %s; end it there (or stop that process) before continuing it here", e.ID, who)
}

func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// owner is what the sidecar file of a locked transcript says of its
// writer, so that the next one to try can name it. The lock itself is
// the kernel's (lockFile) and dies with the process; the sidecar may
// outlive a crash, and is believed only while the lock is held.
type owner struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
}

func ownerPath(transcript string) string {
	return strings.TrimSuffix(transcript, ".jsonl") + ".owner"
}

// thisCommand is this process's command line, short: "aci serve".
func thisCommand() string {
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	for i, a := range args {
		// A question after -p is the person's text, not the command's name.
		if a == "-p" || a == "--prompt" || a == "-prompt" {
			args = args[:i+1]
			break
		}
	}
	cmd := strings.Join(args, " ")
	if r := []rune(cmd); len(r) > 80 {
		cmd = string(r[:79]) + "…"
	}
	return cmd
}

// claim takes the transcript f (opened at path) for this process: an
// exclusive lock that the kernel drops when the process ends, however it
// ends. A transcript already locked gives a *LockedError.
func claim(f *os.File, path string) error {
	if err := lockFile(f); err != nil {
		if errors.Is(err, errWouldBlock) {
			e := &LockedError{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
			if data, rerr := os.ReadFile(ownerPath(path)); rerr == nil {
				var o owner
				if json.Unmarshal(data, &o) == nil {
					e.PID, e.Command = o.PID, o.Command
				}
			}
			return e
		}
		return fmt.Errorf("lock transcript %s: %w", path, err)
	}
	data, _ := json.Marshal(owner{PID: os.Getpid(), Command: thisCommand()})
	// Only a name for others' error messages: failing to write it is no
	// reason to refuse the session.
	_ = writeFileAtomic(ownerPath(path), append(data, '\n'))
	return nil
}

// release removes the sidecar of a transcript this process claimed; the
// lock goes with the file's close.
func release(path string) {
	data, err := os.ReadFile(ownerPath(path))
	if err != nil {
		return
	}
	var o owner
	if json.Unmarshal(data, &o) == nil && o.PID == os.Getpid() {
		os.Remove(ownerPath(path))
	}
}

// writeFileAtomic writes data to path through a temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".owner-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// dropCutTail makes sure a transcript about to be appended to ends with a
// whole line: a last line cut by a crash would otherwise be glued to the
// next record, and both lost. A cut line that is not a record is removed
// (dropped is 1); one that is whole but for its line end gets it.
func dropCutTail(f *os.File) (dropped int, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if size == 0 {
		return 0, nil
	}
	// Find the start of the last line, reading back a block at a time.
	start := int64(-1)
	buf := make([]byte, 64<<10)
	for end := size; end > 0 && start < 0; {
		off := max(0, end-int64(len(buf)))
		b := buf[:end-off]
		if _, err := f.ReadAt(b, off); err != nil {
			return 0, err
		}
		if end == size && b[len(b)-1] == '\n' {
			return 0, nil // ends with a whole line
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			start = off + int64(i) + 1
		}
		end = off
	}
	start = max(start, 0)
	tail := make([]byte, size-start)
	if _, err := f.ReadAt(tail, start); err != nil {
		return 0, err
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(tail, &r) == nil {
		_, err = f.Write([]byte("\n"))
		return 0, err
	}
	return 1, f.Truncate(start)
}
