// Package transcript is a session's transcript file: JSON lines appended
// as they happen by the file's one writer (locked against another aci
// process), a meta record first, the session's event records beside the
// conversation's own, and the store of such files. What a record of the
// conversation holds is package agent's; the events' encoding is package
// session's: both append here, neither through the other.
package transcript

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Meta is what a transcript's first record says of it.
type Meta struct {
	Workdir string
	Model   string
	// Parent and FromTurn mark a branch: the session it was forked from
	// and how many of its turns it took.
	Parent   string
	FromTurn int
}

// metaRecord is the meta record as written.
type metaRecord struct {
	Type     string `json:"type"`
	Time     string `json:"time"`
	Workdir  string `json:"workdir,omitempty"`
	Model    string `json:"model,omitempty"`
	Parent   string `json:"parent,omitempty"`
	FromTurn int    `json:"from_turn,omitempty"`
}

// File appends a session's records to a file as they happen, so a
// session killed mid-turn can be resumed from what was written. A new
// transcript creates its file only with its first record after the meta
// one: a session in which nothing happened leaves no file.
type File struct {
	mu     sync.Mutex
	f      *os.File
	meta   *Meta  // written first, once the file is created
	secret string // never written: replaced wherever it appears
	Path   string
	// Dropped counts the cut last lines removed when it was opened.
	Dropped int
	// waiting are event records written before the file was made: a
	// session in which nothing but events happened leaves no file.
	waiting [][]byte
}

// New starts a new transcript in dir; its file is created with the first
// record that follows the meta record. secret (the API key) is scrubbed
// from everything written.
func New(dir string, meta Meta, secret string) (*File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	var rnd [4]byte
	rand.Read(rnd[:])
	name := time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(rnd[:]) + ".jsonl"
	return &File{meta: &meta, secret: secret, Path: filepath.Join(dir, name)}, nil
}

// Open opens path to append to it, as its one writer: another process
// writing it gives a *LockedError. A last line cut by a crash is dropped
// (dropCutTail, counted in Dropped), so the next record starts a line of
// its own.
func Open(path, secret string) (*File, error) {
	f, err := openClaimed(path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return nil, err
	}
	dropped, err := dropCutTail(f)
	if err != nil {
		release(path)
		f.Close()
		return nil, fmt.Errorf("repair the end of transcript %s: %w", path, err)
	}
	return &File{f: f, secret: secret, Path: path, Dropped: dropped}, nil
}

// openClaimed opens path with flag and takes it for this process (claim).
func openClaimed(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open transcript %s: %w", path, err)
	}
	if err := claim(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Now is a record's time as written.
func Now() string { return time.Now().UTC().Format(time.RFC3339) }

// Write appends one record, v encoded as one line, creating the file (and
// its meta record) first if it is not there yet.
func (t *File) Write(v any) error {
	if t == nil {
		return nil
	}
	line, err := encodeLine(v)
	if err != nil {
		return err
	}
	return t.WriteLine(line)
}

// WriteLine appends a record already encoded (a branch copies its
// parent's lines as they were written).
func (t *File) WriteLine(line []byte) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ensureLocked(); err != nil {
		return err
	}
	return t.writeLocked(line)
}

// Created reports whether the file exists (was opened, or written to).
func (t *File) Created() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.f != nil
}

// Create makes the file and its meta record now, if not yet made.
func (t *File) Create() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ensureLocked()
}

// ensureLocked creates the file with its meta record if it is not there.
func (t *File) ensureLocked() error {
	if t.f != nil {
		return nil
	}
	if t.meta == nil {
		return errors.New("write transcript: it is closed")
	}
	f, err := openClaimed(t.Path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return err
	}
	t.f = f
	m := *t.meta
	t.meta = nil
	// Sessions started in the same second are told apart by its time.
	line, err := encodeLine(metaRecord{Type: "meta", Time: time.Now().UTC().Format(time.RFC3339Nano),
		Workdir: m.Workdir, Model: m.Model, Parent: m.Parent, FromTurn: m.FromTurn})
	if err != nil {
		return err
	}
	if err := t.writeLocked(line); err != nil {
		return err
	}
	w := t.waiting
	t.waiting = nil
	for _, line := range w {
		if err := t.writeLocked(line); err != nil {
			return err
		}
	}
	prune(filepath.Dir(t.Path), m.Workdir, keptSessions)
	return nil
}

// encodeLine is v as one line. HTML is not escaped: an event record keeps
// its event's bytes as they were sent ("a && b" stays as it is).
func encodeLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode transcript record: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (t *File) writeLocked(line []byte) error {
	s := string(line)
	if t.secret != "" && len(t.secret) >= 8 {
		s = strings.ReplaceAll(s, t.secret, "[redacted]")
	}
	if _, err := io.WriteString(t.f, s+"\n"); err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	return nil
}

// Close closes the file, if one was created.
func (t *File) Close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.meta = nil
	if t.f == nil {
		return nil
	}
	release(t.Path)
	err := t.f.Close() // the lock goes with it
	t.f = nil
	return err
}
