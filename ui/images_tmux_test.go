package ui

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// @shot.png in a question attaches the picture (no file window is
// opened); a file that is not the picture its name says is refused with
// a line, nothing sent.
func TestREPLAtImage(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "a wide grey picture"})
	s := startREPL(t, srv, nil)
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 6, 2)))
	if err := os.WriteFile(filepath.Join(s.work, "shot.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	testfs.File(t, filepath.Join(s.work, "fake.png"), "not a picture\n")
	s.waitPrompt()
	s.exchange("what is @fake.png?", "image fake.png: the bytes are not a PNG, JPEG, GIF or WebP picture")
	s.typeLine("what is @shot.png?")
	s.waitFor("a wide grey picture")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if urls := reqs[0].ImageURLs(); len(urls) != 1 || urls[0] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(b.Bytes()) {
		t.Fatalf("%d image parts", len(urls))
	}
	if mentions(reqs[0], "Files referenced") {
		t.Errorf("the picture was opened as a file: %+v", reqs[0].Messages)
	}
	if !strings.Contains(s.screen(), "▸ attached shot.png") {
		t.Errorf("no line says the picture is attached")
	}
}
