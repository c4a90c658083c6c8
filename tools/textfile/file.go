// Package textfile reads and writes text files for file windows: line
// ranges, encodings and line endings kept, atomic writes, and every access
// checked where the path leads now (links swapped behind aci's back).
package textfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/aci-dev/aci/tools/sandbox"
)

// MaxEditBytes is the largest file that is read whole for an edit or write;
// larger files can only be viewed by range.
const MaxEditBytes = 10 << 20

// sniffBytes is how much of a file decides whether it is binary.
const sniffBytes = 8000

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ErrBinary is returned for files that hold binary data.
var ErrBinary = errors.New("binary file")

// Signature identifies a file's state on disk, to notice changes made
// behind a window's back. The change time (ctime) moves on every write and
// cannot be set by programs, so equal signatures mean unchanged content
// without reading it.
type Signature struct {
	Exists  bool
	Size    int64
	ModTime time.Time
	Ctime   syscall.Timespec
	Inode   uint64
	// Content is a hash of the text, set only when the text came from
	// elsewhere than the disk (an editor's unsaved buffer), whose changes
	// move no time on disk.
	Content uint64
}

// StatSignature reads path's signature. A missing file is a zero Signature.
func StatSignature(path string) (Signature, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Signature{}, nil
	}
	if err != nil {
		return Signature{}, fmt.Errorf("stat %s: %w", path, err)
	}
	sig := Signature{Exists: true, Size: fi.Size(), ModTime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		sig.Ctime = ctime(st)
		sig.Inode = st.Ino
	}
	return sig, nil
}

// IsBinary reports whether the start of path holds a NUL byte, the same
// test git and grep use.
func IsBinary(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	return isBinary(f, path)
}

func isBinary(f io.Reader, path string) (bool, error) {
	buf := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return bytes.IndexByte(buf[:n], 0) >= 0, nil
}

// LinesOf is ReadLines on a text held in memory (an editor's buffer).
func LinesOf(text string, start, end, maxLineLen int) LineRange {
	lr, _ := readLines(strings.NewReader(text), "", start, end, maxLineLen) // a string reader never fails
	return lr
}

// LineRange is a window onto a text file, read without loading it whole.
type LineRange struct {
	Total     int      // lines in the file
	Start     int      // first line shown, from 1 (0 when the file is empty)
	Lines     []string // lines Start.. as shown (CR and BOM removed, long lines cut)
	CRLF      bool     // the file's first line ends in CRLF
	BOM       bool
	ValidUTF8 bool
}

// ReadLines reads lines start..end (1-based, inclusive) of path, cutting each
// line at maxLineLen bytes. Memory stays bounded whatever the file's size.
func ReadLines(path string, start, end, maxLineLen int) (LineRange, error) {
	f, err := os.Open(path)
	if err != nil {
		return LineRange{}, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	return readLines(f, path, start, end, maxLineLen)
}

func readLines(f io.Reader, path string, start, end, maxLineLen int) (LineRange, error) {
	r := bufio.NewReaderSize(f, 64<<10)
	lr := LineRange{ValidUTF8: true}
	if start < 1 {
		start = 1
	}
	if b, _ := r.Peek(3); bytes.Equal(b, utf8BOM) {
		lr.BOM = true
		r.Discard(3)
	}
	var line []byte
	lineLen, lineNo := 0, 0
	cut := false
	flush := func() {
		lineNo++
		if lineNo == 1 && bytes.HasSuffix(line, []byte("\r")) {
			lr.CRLF = true
		}
		if lineNo >= start && lineNo <= end {
			s := strings.TrimSuffix(string(line), "\r")
			if !utf8.ValidString(s) {
				lr.ValidUTF8 = false
				s = strings.ToValidUTF8(s, "\uFFFD")
			}
			if cut {
				s = trimRunes(s) + fmt.Sprintf(" … (line cut: %d characters)", lineLen)
			}
			if lr.Start == 0 {
				lr.Start = lineNo
			}
			lr.Lines = append(lr.Lines, s)
		}
		line, lineLen, cut = line[:0], 0, false
	}
	pending := false
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			pending = true
			body := bytes.TrimSuffix(chunk, []byte("\n"))
			lineLen += len(body)
			if lineNo+1 >= start && lineNo+1 <= end {
				if room := maxLineLen - len(line); room > 0 {
					line = append(line, body[:min(room, len(body))]...)
				}
				if lineLen > maxLineLen {
					cut = true
				}
			}
			if bytes.HasSuffix(chunk, []byte("\n")) {
				flush()
				pending = false
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return LineRange{}, fmt.Errorf("read %s: %w", path, err)
		}
	}
	if pending {
		flush()
	}
	lr.Total = lineNo
	return lr, nil
}

// trimRunes drops a partial UTF-8 sequence at the end of s.
func trimRunes(s string) string {
	for i := 0; i < utf8.UTFMax && len(s) > 0; i++ {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// TextFile is a whole text file in memory, its line endings and BOM
// remembered so that an edit writes them back as they were.
type TextFile struct {
	Text string // content with the BOM removed and CRLF turned into LF
	CRLF bool
	BOM  bool
	Mode fs.FileMode
}

// ReadTextFile reads path whole for editing. It refuses binary files and
// files over MaxEditBytes.
func ReadTextFile(path string) (TextFile, error) {
	// Non-blocking, so that a FIFO is refused rather than waited on.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return TextFile{}, fmt.Errorf("stat %s: %w", path, err)
	}
	defer f.Close()
	return readTextFile(f, path)
}

func readTextFile(f *os.File, path string) (TextFile, error) {
	fi, err := f.Stat()
	if err != nil {
		return TextFile{}, fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return TextFile{}, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > MaxEditBytes {
		return TextFile{}, fmt.Errorf("%s is %d bytes, over the %d MB that can be rewritten whole: view it by range and change it with a command (sed, a script)", path, fi.Size(), MaxEditBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxEditBytes+1))
	if err != nil {
		return TextFile{}, fmt.Errorf("read %s: %w", path, err)
	}
	return ParseText(path, data, fi.Mode().Perm())
}

// ParseText makes a TextFile of a file's bytes read elsewhere (an editor's
// buffer): the same refusals and the same BOM and line-ending handling as
// ReadTextFile.
func ParseText(path string, data []byte, mode fs.FileMode) (TextFile, error) {
	if len(data) > MaxEditBytes {
		return TextFile{}, fmt.Errorf("%s is %d bytes, over the %d MB that can be rewritten whole: view it by range and change it with a command (sed, a script)", path, len(data), MaxEditBytes>>20)
	}
	if bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0 {
		return TextFile{}, fmt.Errorf("%s: %w", path, ErrBinary)
	}
	tf := TextFile{Mode: mode}
	if bytes.HasPrefix(data, utf8BOM) {
		tf.BOM = true
		data = data[len(utf8BOM):]
	}
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		tf.CRLF = true
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	tf.Text = string(data)
	return tf, nil
}

// Encode turns text (LF line endings) back into the file's bytes.
func (tf TextFile) Encode(text string) []byte {
	if tf.CRLF {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
	}
	if tf.BOM {
		return append(append([]byte{}, utf8BOM...), text...)
	}
	return []byte(text)
}

// Replace replaces old with new in text: exactly one occurrence, or all of
// them when all is set. It says how many were replaced.
func Replace(text, old, new string, all bool) (string, int, error) {
	if old == "" {
		return "", 0, errors.New("old_text is empty: give the exact text to replace (to write a whole file use write)")
	}
	n := strings.Count(text, old)
	switch {
	case n == 0:
		return "", 0, errors.New("old_text not found: it must match the file exactly, whitespace and indentation included; view the region and copy it")
	case n > 1 && !all:
		return "", 0, fmt.Errorf("old_text found %d times: add surrounding lines to make it unique, or set replace_all to true", n)
	}
	if all {
		return strings.ReplaceAll(text, old, new), n, nil
	}
	return strings.Replace(text, old, new, 1), 1, nil
}

// WriteAtomic writes data to path through a temporary file in the same
// folder and a rename, so a crash leaves the old or the new content, never a
// mix. A symlink is followed (the link stays, its target changes); an
// existing file keeps its mode, a new one gets perm; missing folders are
// created.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("write %s: not a regular file", path)
		}
		perm = fi.Mode().Perm()
		if perm&0o222 == 0 {
			return fmt.Errorf("write %s: the file is read-only (mode %04o)", path, perm)
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create folder %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".aci-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmpName := tmp.Name()
	defer sandbox.NoteTemp(tmpName)() // removed by the next aci should this one be killed
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if err := fillTemp(tmp, path, data, perm); err != nil {
		return err
	}
	if err := os.Rename(tmpName, path); err != nil {
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	ok = true
	return nil
}

// fillTemp writes data into the temp file that will replace path, with its
// mode, and makes it durable before the rename.
func fillTemp(tmp *os.File, path string, data []byte, perm fs.FileMode) error {
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
