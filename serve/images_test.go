package serve

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

func TestMessageWithImages(t *testing.T) {
	r := newRig(t, []fakeai.Reply{{Content: "a small square"}})
	id := r.newSession()
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	data := base64.StdEncoding.EncodeToString(b.Bytes())
	big := strings.Repeat("A", 28<<20)

	bad := []struct {
		name string
		body any
		code int
		want string
	}{
		{"mislabelled", map[string]any{"text": "look", "images": []any{map[string]any{"data": data, "mime": "image/gif"}}}, 400, "named GIF but the bytes are PNG"},
		{"not base64", map[string]any{"text": "look", "images": []any{map[string]any{"data": "%%%", "mime": "image/png"}}}, 400, "not base64"},
		{"not a picture", map[string]any{"text": "look", "images": []any{map[string]any{"data": "aGVsbG8=", "mime": "image/png"}}}, 400, "not a PNG, JPEG, GIF or WebP"},
		{"over 20 MB", `{"text":"look","images":[{"data":"` + big[:27962040] + `","mime":"image/png"}]}`, 413, "over 20.0 MB together"},
		{"body over the limit", `{"text":"look","images":[{"data":"` + big + `","mime":"image/png"}]}`, 413, ""},
		{"text over 256 KiB", map[string]any{"text": strings.Repeat("x", 257<<10)}, 413, "256 KiB"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			code, body := r.call("POST", "/api/sessions/"+id+"/messages", c.body, nil)
			if code != c.code || !strings.Contains(body, c.want) {
				t.Fatalf("%d %.300s, want %d %q", code, body, c.code, c.want)
			}
		})
	}
	if n := len(r.ai.Requests()); n != 0 {
		t.Fatalf("%d requests after bad messages", n)
	}

	ev := r.events(id, "")
	r.must(202, "POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "what is this?", "images": []any{map[string]any{"data": data, "mime": "image/png", "name": "paste.png"}}}, nil)
	ev.until(idle)
	req := r.ai.Requests()[0]
	if urls := req.ImageURLs(); len(urls) != 1 || urls[0] != "data:image/png;base64,"+data {
		t.Fatalf("%d image parts", len(urls))
	}
}

// Pictures cannot join a running turn: 409, and they are not kept for
// a later question either (the client keeps them).
func TestImagesWhileATurnRuns(t *testing.T) {
	r := newRig(t, []fakeai.Reply{{Content: "slow answer", Delay: 2 * time.Second}, {Content: "next"}})
	id := r.newSession()
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	data := base64.StdEncoding.EncodeToString(b.Bytes())
	ev := r.events(id, "")
	r.ask(id, "take your time")
	r.ai.WaitRequests(1, 5*time.Second)
	code, body := r.call("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "and this", "images": []any{map[string]any{"data": data, "mime": "image/png"}}}, nil)
	if code != 409 || !strings.Contains(body, "a turn is running") {
		t.Fatalf("%d %s", code, body)
	}
	ev.until(idle)
	r.ask(id, "now?")
	reqs := r.ai.WaitRequests(2, 5*time.Second)
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, req := range reqs {
		if n := len(req.ImageURLs()); n != 0 {
			t.Fatalf("request %d has %d image parts", req.N, n)
		}
	}
}
