package windows

import (
	"context"
	"errors"
	"hash/fnv"
	"io/fs"
	"time"

	"github.com/aci-dev/aci/tools/textfile"
)

// Files stands in for the disk where file windows read and write text: an
// editor serving its buffers, unsaved changes included, and taking edits
// into them (ACP's fs methods). aci's checks on the path run before every
// call, as they do before the disk is touched.
type Files interface {
	ReadText(ctx context.Context, path string) (string, error)
	WriteText(ctx context.Context, path, content string) error
}

// ErrNoEditor is what a Files method returns for what the editor does
// not offer: the window then uses the disk.
var ErrNoEditor = errors.New("the editor does not offer this")

// filesTimeout bounds an editor read made while rendering, which has no
// context of its own (View is called without one).
const filesTimeout = 10 * time.Second

// snapshot is the file as the window reads it now.
type snapshot struct {
	sig textfile.Signature
	// text is the editor's text; nil when the disk is read.
	text *textfile.TextFile
}

// current reads the file's signature and, through the editor when there
// is one, its text. A file the editor cannot give (it does not know it, it
// failed) is read from disk, which is what the editor would show.
func (w *fileWindow) current(ctx context.Context) (snapshot, error) {
	sig, err := textfile.StatSignature(w.path)
	if err != nil || !sig.Exists || w.env.Files == nil {
		return snapshot{sig: sig}, err
	}
	// The same checks as a disk read: where the path leads now, secrets,
	// hard links to a secret store.
	f, err := w.access.Open(w.path)
	if err != nil {
		return snapshot{sig: sig}, err
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		return snapshot{sig: sig}, err
	}
	text, err := w.env.Files.ReadText(ctx, w.path)
	if err != nil {
		return snapshot{sig: sig}, nil
	}
	tf, err := textfile.ParseText(w.title, []byte(text), fi.Mode().Perm())
	if err != nil {
		return snapshot{sig: sig}, err
	}
	h := fnv.New64a()
	h.Write([]byte(text))
	// The editor's text, not the disk's times, tells two states apart.
	return snapshot{sig: textfile.Signature{Exists: true, Size: int64(len(text)), Content: h.Sum64() | 1}, text: &tf}, nil
}

// readWhole reads the whole file for an edit or a write.
func (w *fileWindow) readWhole(ctx context.Context) (textfile.TextFile, textfile.Signature, error) {
	s, err := w.current(ctx)
	if err != nil {
		return textfile.TextFile{}, s.sig, err
	}
	if s.text != nil {
		return *s.text, s.sig, nil
	}
	if !s.sig.Exists {
		return textfile.TextFile{}, s.sig, fs.ErrNotExist
	}
	tf, err := w.access.ReadTextFile(w.path)
	return tf, s.sig, err
}

// store writes data where the file lives: into the editor's buffer after
// the checks a disk write makes, or atomically to disk.
func (w *fileWindow) store(ctx context.Context, data []byte, perm fs.FileMode) error {
	if w.env.Files == nil {
		return w.access.WriteAtomic(w.path, data, perm)
	}
	// Where the path leads now, resolved beneath the workspace: the editor
	// writes by path, so it is given the real one.
	target, err := w.access.WritePath(w.path)
	if err != nil {
		return err
	}
	err = w.env.Files.WriteText(ctx, target, string(data))
	switch {
	case errors.Is(err, ErrNoEditor):
		return w.access.WriteAtomic(w.path, data, perm)
	case err != nil:
		return errors.New("the editor did not take the write: " + err.Error())
	}
	return nil
}
