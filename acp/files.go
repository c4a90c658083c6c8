package acp

import (
	"context"
	"errors"
	"time"

	"github.com/aci-dev/aci/windows"
)

// fileTimeout bounds one read or write through the editor.
const fileTimeout = 30 * time.Second

// editorFiles reads and writes file windows' text through the editor
// (fs/read_text_file, fs/write_text_file), as far as it offers them; what
// it does not offer, aci does on disk.
type editorFiles struct {
	c           *conn
	sessionID   string
	read, write bool
}

func (e *editorFiles) ReadText(ctx context.Context, path string) (string, error) {
	if !e.read {
		return "", windows.ErrNoEditor
	}
	ctx, cancel := context.WithTimeout(ctx, fileTimeout)
	defer cancel()
	var res readTextFileResult
	if err := e.c.call(ctx, "fs/read_text_file", readTextFileParams{SessionID: e.sessionID, Path: path}, &res, true); err != nil {
		return "", err
	}
	if res.Content == nil {
		return "", errors.New("the editor's answer has no content")
	}
	return *res.Content, nil
}

func (e *editorFiles) WriteText(ctx context.Context, path, content string) error {
	if !e.write {
		return windows.ErrNoEditor
	}
	ctx, cancel := context.WithTimeout(ctx, fileTimeout)
	defer cancel()
	// Not redacted: the editor must get the file as it is to be.
	return e.c.call(ctx, "fs/write_text_file", writeTextFileParams{SessionID: e.sessionID, Path: path, Content: content}, nil, false)
}
