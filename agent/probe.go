package agent

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// probeKind says how a server can be asked for a model's window.
type probeKind int

const (
	probeNone       probeKind = iota // it cannot say: never asked
	probeLocal                       // a server on this machine or network: its own endpoints
	probeOpenRouter                  // GET /models lists each model's context_length
	probeResolve                     // a host name: local if it resolves to private addresses
)

// probeTarget decides, without a request, whether the server at baseURL
// can answer: a remote API that has no endpoint for it would only answer
// 404s, so it is never asked.
func probeTarget(baseURL string) probeKind {
	u, err := url.Parse(baseURL)
	if err != nil {
		return probeNone
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "":
		return probeNone
	case host == "openrouter.ai" || strings.HasSuffix(host, ".openrouter.ai"):
		return probeOpenRouter
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return probeLocal
	case publicAPIs[host]:
		return probeNone
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if localAddr(ip) {
			return probeLocal
		}
		return probeNone
	}
	return probeResolve
}

// publicAPIs are providers known to have no endpoint that tells a model's
// window: not even their names are looked up.
var publicAPIs = map[string]bool{
	"api.openai.com": true, "api.anthropic.com": true, "generativelanguage.googleapis.com": true,
	"api.deepseek.com": true, "api.mistral.ai": true, "api.x.ai": true, "api.groq.com": true,
	"api.together.xyz": true, "api.fireworks.ai": true, "api.moonshot.ai": true,
}

// resolveTarget looks a host name up (in the background, alongside the
// first request): a name for a machine on the local network is probed like
// one on this machine; a public host is not.
func resolveTarget(ctx context.Context, baseURL string) probeKind {
	u, err := url.Parse(baseURL)
	if err != nil {
		return probeNone
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil || len(addrs) == 0 {
		return probeNone
	}
	for _, a := range addrs {
		if !localAddr(a) {
			return probeNone
		}
	}
	return probeLocal
}

// localAddr: loopback, private (RFC 1918, fc00::/7) or link-local.
func localAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()
}

// probeOpenRouterWindow reads model's context_length from OpenRouter's
// model list.
func probeOpenRouterWindow(ctx context.Context, baseURL, apiKey, model string) Window {
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			ContextLength int64  `json:"context_length"`
		} `json:"data"`
	}
	if getJSON(ctx, strings.TrimRight(baseURL, "/")+"/models", apiKey, &list) != nil {
		return Window{Model: model}
	}
	for _, m := range list.Data {
		if m.ID == model && m.ContextLength > 0 {
			return Window{Tokens: m.ContextLength, Server: "OpenRouter", Model: model}
		}
	}
	return Window{Model: model}
}

// ProbeWindow asks the server at baseURL for model's context window, the
// way each local server tells it, all at once:
//
//	Ollama     POST /api/show (model_info "*.context_length", num_ctx) and GET /api/ps (context_length)
//	LM Studio  GET /api/v0/models (loaded_context_length, max_context_length)
//	llama.cpp  GET /props (default_generation_settings.n_ctx)
//	vLLM       GET /v1/models (max_model_len)
//
// The first that answers, in that order, wins; Window{} if none does.
func ProbeWindow(ctx context.Context, baseURL, apiKey, model string) Window {
	root := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1")
	probes := []func() Window{
		func() Window { return probeOllama(ctx, root, model) },
		func() Window { return probeLMStudio(ctx, root, model) },
		func() Window { return probeLlamaCpp(ctx, root, model) },
		func() Window { return probeVLLM(ctx, baseURL, apiKey, model) },
	}
	got := make([]Window, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = p()
		}()
	}
	wg.Wait()
	for _, w := range got {
		if w.Tokens > 0 {
			return w
		}
	}
	return Window{Model: model}
}

// ollamaDefaultContext is the window Ollama loads a model with when
// neither OLLAMA_CONTEXT_LENGTH nor num_ctx says otherwise.
const ollamaDefaultContext = 4096

func probeOllama(ctx context.Context, root, model string) Window {
	var show struct {
		ModelInfo  map[string]any `json:"model_info"`
		Parameters string         `json:"parameters"`
	}
	if doJSON(ctx, http.MethodPost, root+"/api/show", "", map[string]string{"model": model}, &show) != nil || (show.ModelInfo == nil && show.Parameters == "") {
		return Window{}
	}
	var trained int64
	for k, v := range show.ModelInfo {
		if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") {
			trained = int64(n)
		}
	}
	window := int64(0)
	// A loaded model's window is the truth; num_ctx is what it will load with.
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int64  `json:"context_length"`
		} `json:"models"`
	}
	if getJSON(ctx, root+"/api/ps", "", &ps) == nil {
		for _, m := range ps.Models {
			if (m.Name == model || m.Model == model || m.Name == model+":latest") && m.ContextLength > 0 {
				window = m.ContextLength
			}
		}
	}
	if window == 0 {
		window = numCtx(show.Parameters)
	}
	assumed := window == 0
	if assumed {
		window = ollamaDefaultContext
	}
	if trained > 0 && trained < window {
		window, assumed = trained, false
	}
	return Window{Tokens: window, Server: "Ollama", Model: model, Assumed: assumed}
}

// numCtx reads "num_ctx N" from a Modelfile's parameters text.
func numCtx(params string) int64 {
	for _, line := range strings.Split(params, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

func probeLMStudio(ctx context.Context, root, model string) Window {
	var list struct {
		Data []struct {
			ID                  string `json:"id"`
			LoadedContextLength int64  `json:"loaded_context_length"`
			MaxContextLength    int64  `json:"max_context_length"`
		} `json:"data"`
	}
	if getJSON(ctx, root+"/api/v0/models", "", &list) != nil {
		return Window{}
	}
	for _, m := range list.Data {
		if m.ID != model {
			continue
		}
		n := m.LoadedContextLength
		if n == 0 {
			n = m.MaxContextLength
		}
		return Window{Tokens: n, Server: "LM Studio", Model: model}
	}
	return Window{}
}

func probeLlamaCpp(ctx context.Context, root, model string) Window {
	var props struct {
		NCtx     int64 `json:"n_ctx"`
		Defaults struct {
			NCtx int64 `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if getJSON(ctx, root+"/props", "", &props) != nil {
		return Window{}
	}
	n := props.Defaults.NCtx
	if n == 0 {
		n = props.NCtx
	}
	return Window{Tokens: n, Server: "llama.cpp", Model: model}
}

func probeVLLM(ctx context.Context, baseURL, apiKey, model string) Window {
	models, err := ListModels(ctx, baseURL, apiKey)
	if err != nil {
		return Window{}
	}
	for _, m := range models {
		if m.ID == model && m.MaxModelLen > 0 {
			return Window{Tokens: m.MaxModelLen, Server: "vLLM", Model: model}
		}
	}
	return Window{}
}
