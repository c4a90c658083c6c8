package windows

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/protocol"
)

func pngFile(t *testing.T, path string, w, h int) {
	t.Helper()
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)))
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestImageWindow(t *testing.T) {
	dir := t.TempDir()
	pngFile(t, filepath.Join(dir, "shot.png"), 4, 3)
	os.WriteFile(filepath.Join(dir, "text.png"), []byte("hello"), 0o644)
	pngFile(t, filepath.Join(dir, "really.png"), 1, 1)
	os.Rename(filepath.Join(dir, "really.png"), filepath.Join(dir, "really.webp"))
	deny := ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{} })
	m := NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: deny}, ImageApp)
	defer m.CloseAll()

	for _, c := range []struct{ target, want string }{
		{"text.png", "image text.png: the bytes are not a PNG, JPEG, GIF or WebP picture"},
		{"really.webp", "image really.webp: named WEBP but the bytes are PNG"},
		{"gone.png", "image gone.png: cannot read it: no such file or directory"},
		{"notes.txt", "image notes.txt: not a picture by its name"},
	} {
		res := do(t, m, "launcher", "open", `{"app":"image","target":"`+c.target+`"}`)
		if res.Status != protocol.StatusError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s: %s %q", c.target, res.Status, res.Text)
		}
	}
	res := do(t, m, "launcher", "open", `{"app":"image","target":"shot.png"}`)
	if res.Status != protocol.StatusOK || !strings.HasPrefix(res.Text, "opened image_1") {
		t.Fatalf("%s %q", res.Status, res.Text)
	}
	var w Window
	for _, x := range m.Windows() {
		if x.ID() == "image_1" {
			w = x
		}
	}
	v := w.View()
	if !strings.Contains(v.Content, "shot.png (PNG, ") || !strings.Contains(v.Content, "4×3") {
		t.Fatalf("view %q", v.Content)
	}
	if p := w.(Picture).Picture(v); p == nil || p.Width != 4 {
		t.Fatal("no picture")
	}
	if again := w.View(); again.Content != v.Content {
		t.Fatal("two views of an unchanged file differ")
	}
	pngFile(t, filepath.Join(dir, "shot.png"), 8, 3)
	if v2 := w.View(); v2.Content == v.Content || !strings.Contains(v2.Content, "8×3") {
		t.Fatalf("changed file, view %q", v2.Content)
	}
	os.Remove(filepath.Join(dir, "shot.png"))
	gone := w.View()
	if !strings.Contains(gone.Content, "cannot be read now") || w.(Picture).Picture(gone) != nil {
		t.Fatalf("removed file, view %q", gone.Content)
	}
	if res := do(t, m, "image_1", "close", ""); res.Status != protocol.StatusOK {
		t.Fatalf("close: %s %q", res.Status, res.Text)
	}
}
