package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/jsonrpc"
	"github.com/aci-dev/aci/windows"
)

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", maxLine+10)
	br := bufio.NewReaderSize(strings.NewReader("one\n"+long+"\nthree"), 64<<10)
	var got []string
	for {
		line, tooLong, err := readLine(br)
		if tooLong {
			got = append(got, "<too long>")
		} else {
			got = append(got, string(line))
		}
		if err != nil {
			break
		}
	}
	if strings.Join(got, ",") != "one,<too long>,three" {
		t.Errorf("lines = %q", got)
	}
}

func TestQuestionOf(t *testing.T) {
	text := "func main() {}\n"
	big := strings.Repeat("line\n", maxPromptText/5)
	tests := []struct {
		name   string
		blocks []contentBlock
		want   []string // parts of the question
		attach []string
		err    bool
	}{
		{"text", []contentBlock{textBlock("fix it")}, []string{"fix it"}, nil, false},
		{"mention inside the workspace", []contentBlock{textBlock("look at "), {Type: "resource_link", URI: "file:///work/p/main.go", Name: "main.go"}},
			[]string{"look at", "Attached: main.go"}, []string{"main.go"}, false},
		{"mention outside", []contentBlock{textBlock("see"), {Type: "resource_link", URI: "file:///etc/hosts", Name: "hosts"}},
			[]string{"Attached: /etc/hosts"}, []string{"/etc/hosts"}, false},
		{"web link", []contentBlock{textBlock("read"), {Type: "resource_link", URI: "https://example.com/doc", Name: "doc"}},
			[]string{"Attached: https://example.com/doc"}, nil, false},
		{"embedded", []contentBlock{textBlock("explain"), {Type: "resource", Resource: &resourceContents{URI: "file:///work/p/main.go", Text: &text}}},
			[]string{"explain", `<context source="main.go">`, "func main() {}\n</context>"}, nil, false},
		{"empty", nil, nil, nil, true},
		{"image", []contentBlock{{Type: "image", Data: "AA==", MimeType: "image/png"}}, nil, nil, true},
		{"unknown", []contentBlock{{Type: "video"}}, nil, nil, true},
		{"blank", []contentBlock{textBlock("  ")}, nil, nil, true},
		{"at the limit", []contentBlock{textBlock(strings.Repeat("x", maxPromptText))}, []string{"xxx"}, nil, false},
		{"over the limit", []contentBlock{textBlock(strings.Repeat("x", maxPromptText+1))}, nil, nil, true},
		{"over the limit embedded", []contentBlock{textBlock("explain"), {Type: "resource", Resource: &resourceContents{URI: "file:///work/p/big.txt", Text: &big}}}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, attach, err := questionOf(tt.blocks, "/work/p")
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if err != nil {
				if re, ok := err.(*rpcError); !ok || re.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("error %v is not invalid params", err)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(q, w) {
					t.Errorf("question %q lacks %q", q, w)
				}
			}
			if strings.Join(attach, ",") != strings.Join(tt.attach, ",") {
				t.Errorf("attach = %v, want %v", attach, tt.attach)
			}
		})
	}
}

func TestFence(t *testing.T) {
	if got := fence("a\n"); got != "```\na\n```" {
		t.Errorf("fence = %q", got)
	}
	if got := fence("x ```` y"); !strings.HasPrefix(got, "`````\n") {
		t.Errorf("fence around backticks = %q", got)
	}
}

// A question nobody answers is denied after the timeout, and the editor
// is told the request is withdrawn: nothing waits forever.
func TestApproverTimeout(t *testing.T) {
	r, w := io.Pipe()
	c := newConn(w, log.New(io.Discard, "", 0))
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	a := &approver{c: c, sessionID: "s1", timeout: 200 * time.Millisecond, running: func() string { return "call_1_1" }, rejected: map[string]bool{}}
	start := time.Now()
	d := a.Approve(context.Background(), windows.ApprovalRequest{Kind: "command", WindowID: "bash_1", Subject: "rm -rf ~/x", Reason: "deletes outside the workspace"})
	if d.Allow || !strings.Contains(d.Message, "no answer") || time.Since(start) > 5*time.Second {
		t.Errorf("decision %+v after %s", d, time.Since(start))
	}
	var req, cancel map[string]any
	json.Unmarshal([]byte(<-lines), &req)
	json.Unmarshal([]byte(<-lines), &cancel)
	params, _ := req["params"].(map[string]any)
	tc, _ := params["toolCall"].(map[string]any)
	if req["method"] != "session/request_permission" || tc["toolCallId"] != "call_1_1" || tc["kind"] != "execute" {
		t.Errorf("request = %v", req)
	}
	cp, _ := cancel["params"].(map[string]any)
	if cancel["method"] != "$/cancel_request" || cp["requestId"] != req["id"] {
		t.Errorf("withdrawal = %v", cancel)
	}
}
