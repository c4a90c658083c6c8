// Command fakemodel is a tiny OpenAI-compatible server for benchmarks: it
// answers each non-streaming chat completion with the next scripted reply
// of a file (replies separated by a line "---"), then with "done".
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"
	"strings"
	"sync"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18934", "listen address (loopback)")
	file := flag.String("reply-file", "", "scripted replies")
	flag.Parse()
	data, err := os.ReadFile(*file)
	if err != nil {
		log.Fatal(err)
	}
	replies := strings.Split(string(data), "\n---\n")
	var mu sync.Mutex
	http.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		content := "done"
		if len(replies) > 0 {
			content, replies = replies[0], replies[1:]
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": "bench",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
				"message": map[string]any{"role": "assistant", "content": content, "refusal": nil}}},
			"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
		})
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
