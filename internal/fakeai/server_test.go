package fakeai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func client(srv *Server) *openai.Client {
	c := openai.NewClient(
		option.WithBaseURL(srv.URL),
		option.WithAPIKey("sk-test"),
		option.WithMaxRetries(0),
	)
	return &c
}

func params(user string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model: "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("You are aci."),
			openai.UserMessage(user),
		},
	}
}

func TestNonStreaming(t *testing.T) {
	srv := New(t, Reply{Content: "Hello there", PromptTokens: 42, CachedTokens: 7})
	res, err := client(srv).Chat.Completions.New(context.Background(), params("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Choices[0].Message.Content; got != "Hello there" {
		t.Errorf("content = %q", got)
	}
	if res.Model != "gpt-test" || res.Object != "chat.completion" || res.Choices[0].FinishReason != "stop" {
		t.Errorf("model/object/finish = %q/%q/%q", res.Model, res.Object, res.Choices[0].FinishReason)
	}
	u := res.Usage
	if u.PromptTokens != 42 || u.CompletionTokens != int64(len("Hello there")/4) || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage = %+v", u)
	}
	if u.PromptTokensDetails.CachedTokens != 7 {
		t.Errorf("cached_tokens = %d", u.PromptTokensDetails.CachedTokens)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	r := reqs[0]
	if r.APIKey() != "sk-test" || r.Model != "gpt-test" || r.Stream {
		t.Errorf("recorded key/model/stream = %q/%q/%v", r.APIKey(), r.Model, r.Stream)
	}
	want := []Message{{"system", "You are aci."}, {"user", "hi"}}
	if fmt.Sprint(r.Messages) != fmt.Sprint(want) {
		t.Errorf("messages = %v, want %v", r.Messages, want)
	}
}

func TestStreamingWithUsage(t *testing.T) {
	content := "Streaming works — even with ünïcödé, across many small chunks."
	srv := New(t, Reply{Content: content})
	p := params("stream please")
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := client(srv).Chat.Completions.NewStreaming(context.Background(), p)
	var acc openai.ChatCompletionAccumulator
	chunks := 0
	for stream.Next() {
		acc.AddChunk(stream.Current())
		chunks++
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if got := acc.Choices[0].Message.Content; got != content {
		t.Errorf("accumulated %q, want %q", got, content)
	}
	if want := len(split(content, chunkRunes)) + 1; chunks != want {
		t.Errorf("%d chunks, want %d (content pieces + usage)", chunks, want)
	}
	req := srv.Requests()[0]
	if !req.Stream || !req.IncludeUsage() {
		t.Errorf("recorded stream=%v include_usage=%v", req.Stream, req.IncludeUsage())
	}
	if acc.Usage.PromptTokens != int64(len(req.Body)/4) || acc.Usage.CompletionTokens != int64(len(content)/4) {
		t.Errorf("usage = %+v, body %d bytes", acc.Usage, len(req.Body))
	}
}

// TestStreamWireFormat reads the raw SSE to pin down what the client sees.
func TestStreamWireFormat(t *testing.T) {
	srv := New(t, Reply{Content: "abcdefghijklmnopq"}, Reply{Content: "x"})
	for _, usage := range []bool{false, true} {
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
		if usage {
			body = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
		}
		resp, data := post(t, srv.URL+"/chat/completions", body)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Errorf("Content-Type = %q", ct)
		}
		events := strings.Split(strings.TrimSuffix(data, "\n\n"), "\n\n")
		if events[len(events)-1] != "data: [DONE]" {
			t.Errorf("last event %q", events[len(events)-1])
		}
		events = events[:len(events)-1]
		for i, e := range events {
			if err := ValidateStreamChunk([]byte(strings.TrimPrefix(e, "data: "))); err != nil {
				t.Errorf("usage=%v chunk %d: %v", usage, i, err)
			}
			if strings.Contains(e, `"usage"`) != usage {
				t.Errorf("usage=%v: chunk %d is %s", usage, i, e)
			}
		}
		if !usage {
			want := []string{
				`data: {"choices":[{"delta":{"content":"abcdefgh","role":"assistant"},"finish_reason":null,"index":0,"logprobs":null}],`,
				`data: {"choices":[{"delta":{"content":"ijklmnop"},"finish_reason":null,"index":0,"logprobs":null}],`,
				`data: {"choices":[{"delta":{"content":"q"},"finish_reason":"stop","index":0,"logprobs":null}],`,
			}
			if len(events) != len(want) {
				t.Fatalf("events:\n%s", strings.Join(events, "\n"))
			}
			for i := range want {
				if !strings.HasPrefix(events[i], want[i]) {
					t.Errorf("event %d = %s\nwant prefix %s", i, events[i], want[i])
				}
			}
		} else if last := events[len(events)-1]; !strings.HasPrefix(last, `data: {"choices":[],`) || !strings.Contains(last, `"total_tokens"`) {
			t.Errorf("final usage chunk = %s", last)
		}
	}
}

func TestErrorStatus(t *testing.T) {
	srv := New(t,
		Reply{Status: 429, ErrorCode: "rate_limit_exceeded", Header: map[string]string{"Retry-After": "7"}},
		Reply{Status: 400, ErrorCode: "context_length_exceeded", ErrorMessage: "too long"},
		Reply{Status: 503},
	)
	c := client(srv)
	for _, want := range []struct {
		status int
		code   string
	}{{429, "rate_limit_exceeded"}, {400, "context_length_exceeded"}} {
		_, err := c.Chat.Completions.New(context.Background(), params("hi"))
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("err = %v (%T), want *openai.Error", err, err)
		}
		if apiErr.StatusCode != want.status || apiErr.Code != want.code {
			t.Errorf("status/code = %d/%q, want %d/%q", apiErr.StatusCode, apiErr.Code, want.status, want.code)
		}
		if want.status == 429 && apiErr.Response.Header.Get("Retry-After") != "7" {
			t.Errorf("Retry-After header missing")
		}
	}
	// A streaming request that fails before the stream starts.
	p := params("hi")
	p.StreamOptions.IncludeUsage = openai.Bool(true)
	stream := c.Chat.Completions.NewStreaming(context.Background(), p)
	for stream.Next() {
		t.Error("unexpected chunk")
	}
	var apiErr *openai.Error
	if !errors.As(stream.Err(), &apiErr) || apiErr.StatusCode != 503 || apiErr.Type != "server_error" {
		t.Errorf("stream err = %v", stream.Err())
	}
}

func TestCutAfterStreaming(t *testing.T) {
	srv := New(t, Reply{Content: strings.Repeat("x", 40), CutAfter: 2}, Reply{Content: "short", CutAfter: 5})
	for i, wantChunks := range []int{2, 1} {
		stream := client(srv).Chat.Completions.NewStreaming(context.Background(), params("hi"))
		chunks := 0
		for stream.Next() {
			chunks++
		}
		if chunks != wantChunks || stream.Err() == nil {
			t.Errorf("reply %d: %d chunks, err %v; want %d chunks and an error", i, chunks, stream.Err(), wantChunks)
		}
	}
}

func TestCutAfterJSON(t *testing.T) {
	srv := New(t, Reply{Content: "hello", CutAfter: 10})
	_, err := client(srv).Chat.Completions.New(context.Background(), params("hi"))
	if err == nil {
		t.Fatal("want an error for a truncated body")
	}
}

func TestRawBody(t *testing.T) {
	srv := New(t, Reply{RawBody: "<html>bad gateway</html>", Status: 502}, Reply{RawBody: "{not json"})
	c := client(srv)
	_, err := c.Chat.Completions.New(context.Background(), params("hi"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 {
		t.Errorf("502 garbage: err = %v", err)
	}
	if _, err := c.Chat.Completions.New(context.Background(), params("hi")); err == nil {
		t.Error("200 garbage: want a decode error")
	}
}

func TestHangAndDelayRespectCancellation(t *testing.T) {
	srv := New(t, Reply{Hang: true}, Reply{Content: "late", Delay: time.Hour})
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err := client(srv).Chat.Completions.New(ctx, params("hi"))
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want deadline exceeded", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	}
}

// TestHangReleasedAtClose: a hanging handler must not block cleanup even if
// the client never gives up.
func TestHangReleasedAtClose(t *testing.T) {
	srv := New(t, Reply{Hang: true})
	errc := make(chan error, 1)
	go func() {
		_, err := client(srv).Chat.Completions.New(context.Background(), params("hi"))
		errc <- err
	}()
	srv.WaitRequests(1, 5*time.Second)
	srv.Close()
	if err := <-errc; err == nil {
		t.Error("want an error from a server closed mid-request")
	}
	if _, err := client(srv).Chat.Completions.New(context.Background(), params("hi")); err == nil {
		t.Error("want connection refused after Close")
	}
}

func TestChunkDelayAndWaitRequests(t *testing.T) {
	srv := New(t)
	srv.Handle(func(r Request) Reply {
		return Reply{Content: "echo: " + r.LastUser(), ChunkDelay: time.Millisecond}
	})
	srv.Push(Reply{Content: "queued first"})
	var wg sync.WaitGroup
	got := make([]string, 2)
	for i, q := range []string{"a", "b"} {
		if i == 1 {
			srv.WaitRequests(1, 5*time.Second) // keep arrival order deterministic
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := client(srv).Chat.Completions.New(context.Background(), params(q))
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = res.Choices[0].Message.Content
		}()
	}
	wg.Wait()
	if got[0] != "queued first" || got[1] != "echo: b" {
		t.Errorf("got %q", got)
	}
	if n := len(srv.WaitRequests(2, time.Second)); n != 2 {
		t.Errorf("%d requests", n)
	}
}

func TestArrayContentFlattened(t *testing.T) {
	srv := New(t, Reply{Content: "ok"})
	post(t, srv.URL+"/chat/completions", `{"model":"m","messages":[
		{"role":"system","content":[{"type":"text","text":"sys "},{"type":"text","text":"prompt"}]},
		{"role":"user","content":"q"},
		{"role":"assistant","content":null,"refusal":"no"}]}`)
	msgs := srv.Requests()[0].Messages
	if len(msgs) != 3 || msgs[0].Content != "sys prompt" || msgs[1].Content != "q" || msgs[2].Content != "" {
		t.Errorf("messages = %q", msgs)
	}
}

func TestToolCall(t *testing.T) {
	got := ToolCall(
		Call{Window: "file_1", Action: "edit", Params: map[string]any{"old_text": "a<b", "new_text": "b"}},
		Call{Window: "launcher", Action: "list"},
	)
	want := "<tool_call>\n" +
		`{"calls":[{"window_id":"file_1","action_id":"edit","params":{"new_text":"b","old_text":"a<b"}},{"window_id":"launcher","action_id":"list","params":{}}]}` +
		"\n</tool_call>"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(data)
}
