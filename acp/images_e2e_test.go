package acp_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// An editor's image block goes to the model as one image content part of
// the question; a block that is no picture is refused, nothing sent.
func TestACPImageBlock(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t, fakeai.Reply{Content: "a tiny picture"})
	e := startACP(t, dir, srv)
	init := e.initialize(false, false)
	caps, _ := init["agentCapabilities"].(map[string]any)
	if pc, _ := caps["promptCapabilities"].(map[string]any); pc["image"] != true {
		t.Fatalf("promptCapabilities = %v", caps["promptCapabilities"])
	}
	sid := e.newSession(dir)
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 3, 3)))
	data := base64.StdEncoding.EncodeToString(b.Bytes())

	bad := e.wait(e.send("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{
		map[string]any{"type": "text", "text": "what is this?"},
		map[string]any{"type": "image", "data": data, "mimeType": "image/jpeg"},
	}}))
	if bad.Error == nil || bad.Error.Code != -32602 || !strings.Contains(bad.Error.Message, "named JPEG but the bytes are PNG") {
		t.Fatalf("mislabelled image: %+v", bad.Error)
	}
	var res struct {
		StopReason string `json:"stopReason"`
	}
	e.call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{
		map[string]any{"type": "text", "text": "what is this?"},
		map[string]any{"type": "image", "data": data, "mimeType": "image/png"},
	}}, &res)
	if res.StopReason != "end_turn" {
		t.Fatalf("stopReason %q", res.StopReason)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if urls := reqs[0].ImageURLs(); len(urls) != 1 || urls[0] != "data:image/png;base64,"+data {
		t.Fatalf("%d image parts", len(urls))
	}
}
