package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LocalServer is an OpenAI-compatible server aci looks for on this machine
// when it has neither a key nor a base URL.
type LocalServer struct {
	Name string
	Port int
	// Start is the one command that starts it, for the error when none runs.
	Start string
}

// LocalServers are probed in this order of preference (docs/protocol.md §2).
var LocalServers = []LocalServer{
	{Name: "Ollama", Port: 11434, Start: "ollama serve"},
	{Name: "llama.cpp", Port: 8080, Start: "llama-server -m MODEL.gguf"},
	{Name: "LM Studio", Port: 1234, Start: "lms server start"},
	{Name: "vLLM", Port: 8000, Start: "vllm serve MODEL"},
}

// DiscoverTimeout bounds each probe: a server on loopback answers in
// milliseconds, and start-up must stay fast when none runs.
const DiscoverTimeout = 300 * time.Millisecond

// ModelInfo is one entry of a server's GET /v1/models.
type ModelInfo struct {
	ID string
	// MaxModelLen is vLLM's context window (max_model_len); 0 elsewhere.
	MaxModelLen int64
}

// Discovered is the local server aci found.
type Discovered struct {
	Server  LocalServer
	BaseURL string // http://127.0.0.1:PORT/v1
	Models  []ModelInfo
}

// NoServerError says that no local server answered, and what was tried.
type NoServerError struct{ Tried []LocalServer }

func (e *NoServerError) Error() string {
	var tried []string
	for _, s := range e.Tried {
		tried = append(tried, fmt.Sprintf("%s (127.0.0.1:%d)", s.Name, s.Port))
	}
	start := LocalServers[0].Start
	if len(e.Tried) > 0 && e.Tried[0].Start != "" {
		start = e.Tried[0].Start
	}
	return "OPENAI_API_KEY is not set and no local model server answered (tried " + strings.Join(tried, ", ") +
		"): set OPENAI_API_KEY (export it or put it in .env), or start a local server (e.g. " + start + ") or set OPENAI_BASE_URL to one"
}

// Discover probes servers on host (127.0.0.1 when empty) at once and
// returns the first of them, in their order, that lists its models.
func Discover(ctx context.Context, host string, servers []LocalServer, timeout time.Duration) (Discovered, error) {
	if host == "" {
		host = "127.0.0.1"
	}
	if timeout <= 0 {
		timeout = DiscoverTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	found := make([]*Discovered, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := "http://" + net.JoinHostPort(host, strconv.Itoa(s.Port)) + "/v1"
			if models, err := ListModels(ctx, base, ""); err == nil {
				found[i] = &Discovered{Server: s, BaseURL: base, Models: models}
			}
		}()
	}
	wg.Wait()
	for _, d := range found {
		if d != nil {
			return *d, nil
		}
	}
	return Discovered{}, &NoServerError{Tried: servers}
}

// PickModel returns want if the server has it (or want is a name the list
// does not show, which the server may still load), else the first model.
func (d Discovered) PickModel(want string) (string, error) {
	if want != "" {
		return want, nil
	}
	if len(d.Models) == 0 {
		hint := "load or pull one first"
		if d.Server.Name == "Ollama" {
			hint = "pull one first, e.g. ollama pull qwen2.5-coder"
		}
		return "", fmt.Errorf("%s at %s has no models: %s, or set OPENAI_MODEL", d.Server.Name, d.BaseURL, hint)
	}
	return d.Models[0].ID, nil
}

// probeClient has no timeout of its own: every probe carries a context.
var probeClient = &http.Client{Transport: newTransport()}

// ListModels reads GET {baseURL}/models. The key, if any, goes only to
// that endpoint, as it would with any request.
func ListModels(ctx context.Context, baseURL, apiKey string) ([]ModelInfo, error) {
	var body struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int64  `json:"max_model_len"`
		} `json:"data"`
	}
	if err := getJSON(ctx, strings.TrimRight(baseURL, "/")+"/models", apiKey, &body); err != nil {
		return nil, err
	}
	if body.Data == nil {
		return nil, errors.New("GET /models: no \"data\" list in the reply")
	}
	models := make([]ModelInfo, 0, len(body.Data))
	for _, m := range body.Data {
		if m.ID != "" {
			models = append(models, ModelInfo{ID: m.ID, MaxModelLen: m.MaxModelLen})
		}
	}
	return models, nil
}

// Models lists the models of the client's server (the REPL's /model).
func (c *OpenAIClient) Models(ctx context.Context) ([]ModelInfo, error) {
	return ListModels(ctx, c.baseURL, c.apiKey) // the default endpoint's; ProviderModels lists the others
}

// maxInfoBody caps what a probe reads: model lists and /api/show replies
// are kilobytes, never more than a few megabytes.
const maxInfoBody = 8 << 20

func getJSON(ctx context.Context, u, apiKey string, into any) error {
	return doJSON(ctx, http.MethodGet, u, apiKey, nil, into)
}

func doJSON(ctx context.Context, method, u, apiKey string, payload any, into any) error {
	var body io.Reader
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			return err
		}
		body = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	res, err := probeClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, pathOf(u), res.Status)
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, maxInfoBody)).Decode(into); err != nil {
		return fmt.Errorf("%s %s: %w", method, pathOf(u), err)
	}
	return nil
}

func pathOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Path
	}
	return u
}
