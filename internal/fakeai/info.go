package fakeai

import (
	"encoding/json"
	"net/http"
)

// Info scripts what the fake tells about its models on the endpoints local
// servers add beside chat completions, which aci reads to discover a server
// and its context window. The zero value answers each of them 404, as
// OpenAI's own API does.
type Info struct {
	Models []string // GET /v1/models lists these; nil: 404
	// One server's way to tell the context window; 0 leaves its endpoint 404.
	MaxModelLen     int64 // vLLM: max_model_len in every /v1/models entry
	OllamaNumCtx    int64 // Ollama: POST /api/show parameters "num_ctx N"; GET /api/ps context_length
	OllamaTrained   int64 // Ollama: POST /api/show model_info "llama.context_length"
	LlamaCppNCtx    int64 // llama.cpp: GET /props default_generation_settings.n_ctx
	LMStudioContext int64 // LM Studio: GET /api/v0/models loaded_context_length
	// Pricing gives a /v1/models entry OpenRouter's "pricing" object: USD
	// per token as decimal strings, keys prompt, completion,
	// input_cache_read, input_cache_write.
	Pricing map[string]map[string]string
}

// SetInfo sets what the info endpoints answer.
func (s *Server) SetInfo(i Info) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.info = i
}

// InfoRequests counts the requests the info endpoints received.
func (s *Server) InfoRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.infoReqs
}

// serveInfo answers the info endpoints; false for any other path.
func (s *Server) serveInfo(w http.ResponseWriter, r *http.Request) bool {
	want := http.MethodGet
	switch r.URL.Path {
	case "/api/show":
		want = http.MethodPost
	case "/v1/models", "/api/ps", "/props", "/api/v0/models":
	default:
		return false
	}
	if r.Method != want {
		return false // reported as unexpected by serve
	}
	s.mu.Lock()
	info := s.info
	s.infoReqs++
	s.mu.Unlock()
	var body any
	switch r.URL.Path {
	case "/v1/models":
		if info.Models != nil {
			data := []map[string]any{}
			for _, m := range info.Models {
				e := map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "fakeai"}
				if info.MaxModelLen > 0 {
					e["max_model_len"] = info.MaxModelLen
				}
				if p, ok := info.Pricing[m]; ok {
					e["pricing"] = p
				}
				data = append(data, e)
			}
			body = map[string]any{"object": "list", "data": data}
		}
	case "/api/show":
		if info.OllamaNumCtx > 0 || info.OllamaTrained > 0 {
			var req struct {
				Model string `json:"model"`
			}
			if json.NewDecoder(r.Body).Decode(&req) != nil || req.Model == "" {
				http.Error(w, `{"error":"model is required"}`, http.StatusBadRequest)
				return true
			}
			show := map[string]any{"model_info": map[string]any{"general.architecture": "llama"}, "parameters": ""}
			if info.OllamaTrained > 0 {
				show["model_info"] = map[string]any{"general.architecture": "llama", "llama.context_length": info.OllamaTrained}
			}
			if info.OllamaNumCtx > 0 {
				show["parameters"] = "stop \"<|im_end|>\"\nnum_ctx " + itoa(info.OllamaNumCtx)
			}
			body = show
		}
	case "/api/ps":
		if info.OllamaNumCtx > 0 {
			var models []map[string]any
			for _, m := range info.Models {
				models = append(models, map[string]any{"name": m, "model": m, "context_length": info.OllamaNumCtx})
			}
			body = map[string]any{"models": models}
		}
	case "/props":
		if info.LlamaCppNCtx > 0 {
			body = map[string]any{"default_generation_settings": map[string]any{"n_ctx": info.LlamaCppNCtx}, "total_slots": 1}
		}
	case "/api/v0/models":
		if info.LMStudioContext > 0 {
			var data []map[string]any
			for _, m := range info.Models {
				data = append(data, map[string]any{"id": m, "state": "loaded", "loaded_context_length": info.LMStudioContext, "max_context_length": info.LMStudioContext * 4})
			}
			body = map[string]any{"object": "list", "data": data}
		}
	}
	if body == nil {
		s.writeError(w, Reply{Status: http.StatusNotFound, ErrorMessage: "Invalid URL (" + r.Method + " " + r.URL.Path + ")"})
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
	return true
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
