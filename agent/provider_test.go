package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/aci-dev/aci/internal/fakeai"
)

// bodyCase is one error as a provider sends it: status, headers and body,
// copied from where it was seen (the source). Each runs through the real
// client and SDK against the fake server, streaming and not.
type bodyCase struct {
	name     string
	source   string
	status   int
	header   map[string]string
	body     string
	class    ErrorClass
	provider string        // "" = not checked
	message  string        // contained in APIError.Message
	after    time.Duration // the Retry-After expected, 0 = none
}

var realBodies = []bodyCase{
	// Models without vision (images.go sends notes instead).
	{
		name: "openai image_url on a text model", source: "github.com/browser-use/web-ui/issues/274",
		status: 400, body: `{"error":{"message":"Invalid content type. image_url is only supported by certain models.","type":"invalid_request_error","param":"messages.[1].content.[1].type","code":null}}`,
		class: ClassNoImages, provider: "openai", message: "image_url is only supported",
	},
	{
		name: "llama.cpp without mmproj", source: "github.com/ggml-org/llama.cpp/issues/15377",
		status: 500, body: `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`,
		class: ClassNoImages, provider: "llama.cpp", message: "image input is not supported",
	},
	{
		name: "llama.cpp server without vision", source: "github.com/ggml-org/llama.cpp/issues/13566",
		status: 500, body: `{"error":{"code":500,"message":"image input is not supported by this server","type":"server_error"}}`,
		class: ClassNoImages, provider: "llama.cpp",
	},
	// OpenAI.
	{
		name: "openai context_length_exceeded", source: "github.com/mckaywrigley/chatbot-ui/issues/102",
		status: 400, body: `{"error":{"message":"This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
		class: ClassContextOverflow, provider: "openai", message: "maximum context length is 4097 tokens",
	},
	{
		name: "openai rate_limit_exceeded", source: "github.com/openai/codex/issues/88",
		status: 429, body: `{"error":{"message":"Rate limit reached for o4-mini in organization org-xxxx on tokens per min (TPM): Limit 200000, Used 162960, Requested 42288. Please try again in 1.574s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
		class: ClassRateLimit, provider: "openai", message: "Please try again in 1.574s",
	},
	{
		name: "openai request larger than the TPM limit", source: "github.com/TheR1D/shell_gpt/issues/653",
		status: 429, body: `{"error":{"message":"Request too large for gpt-4o in organization org-78asdf87asdf9aaa8976 on tokens per min (TPM): Limit 30000, Requested 31538. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
		class: ClassContextOverflow, provider: "openai",
	},
	{
		name: "openai insufficient_quota", source: "github.com/ChatGPTNextWeb/NextChat/issues/3123",
		status: 429, body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
		class: ClassQuota, provider: "openai", message: "You exceeded your current quota",
	},
	{
		name: "openai insufficient_quota as type only", source: "github.com/ChatGPTNextWeb/NextChat/issues/1792",
		status: 429, body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":null}}`,
		class: ClassQuota,
	},
	{
		name: "openai invalid_api_key", source: "github.com/chatanywhere/GPT_API_free/issues/62",
		status: 401, body: `{"error":{"message":"Incorrect API key provided: sk-VKMIs***************************************wjh3. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
		class: ClassAuth, provider: "openai",
	},
	{
		name: "openai model_not_found", source: "github.com/Routstr/routstr-core/issues/554",
		status: 404, body: `{"error":{"message":"The model ` + "`gpt-5.4-image-2`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
		class: ClassModelNotFound, provider: "openai", message: "does not exist",
	},

	// Azure OpenAI.
	{
		name: "azure 429 with retry-after", source: "github.com/microsoft/sample-app-aoai-chatGPT/issues/131 (message), github.com/microsoft/copilot-camp/issues/551 (headers)",
		status: 429, header: map[string]string{"Retry-After": "7", "Apim-Request-Id": "3d37de60-f6c3-4ced-a637-92bc9d16d8b5", "X-Ms-Region": "North Central US"},
		body:  `{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2023-05-15 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 7 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}`,
		class: ClassRateLimit, provider: "azure", message: "exceeded token rate limit", after: 7 * time.Second,
	},
	{
		name: "azure 429 asking for a day", source: "github.com/alex-wolf-ps/dbchatprov2/issues/2",
		status: 429, header: map[string]string{"Retry-After": "86400", "X-Ms-Region": "East US"},
		body:  `{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-05-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 86400 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}`,
		class: ClassRateLimit, provider: "azure", after: 86400 * time.Second,
	},
	{
		name: "azure content_filter", source: "github.com/openai/openai-dotnet/issues/55",
		status: 400, body: `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":true,"severity":"high"},"violence":{"filtered":false,"severity":"safe"}}}}}`,
		class: ClassContentFilter, provider: "azure", message: "content management policy",
	},
	{
		name: "azure DeploymentNotFound", source: "github.com/chatboxai/chatbox/issues/646",
		status: 404, body: `{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}}`,
		class: ClassModelNotFound, provider: "azure", message: "The API deployment for this resource does not exist",
	},
	{
		name: "azure context_length_exceeded", source: "github.com/microsoft/kernel-memory/issues/516",
		status: 400, body: `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 10383 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
		class: ClassContextOverflow,
	},

	// OpenRouter.
	{
		name: "openrouter 402 credits", source: "github.com/open-assistant-org/open-assistant/issues/80",
		status: 402, body: `{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","code":402,"metadata":{"limit_source":"openrouter_credits","remedy_hint":"Add credits at https://openrouter.ai/settings/credits, or lower max_tokens / prompt size to fit your remaining balance."}}}`,
		class: ClassQuota, provider: "openrouter", message: "Insufficient credits",
	},
	{
		name: "openrouter 429 upstream", source: "github.com/open-webui/computer/issues/293",
		status: 429, body: `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: ...","provider_name":"BaseTen","limit_source":"upstream_provider_shared_pool","remedy_hint":"Retry shortly, add your own provider key, or route to another provider"}}}`,
		class: ClassRateLimit, provider: "openrouter", message: "Provider returned error (BaseTen: z-ai/glm-5.3-flash is temporarily rate-limited upstream.",
	},
	{
		name: "openrouter 400 upstream JSON", source: "github.com/reVrost/go-openrouter/pull/21",
		status: 400, body: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\n  \"error\": {\n    \"message\": \"Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.\",\n    \"type\": \"invalid_request_error\",\n    \"param\": \"input\",\n    \"code\": null\n  }\n}","provider_name":"OpenAI"}},"user_id":"org_2x...f5"}`,
		class: ClassBadRequest, provider: "openrouter", message: "(OpenAI: Response input messages must contain the word 'json'",
	},
	{
		name: "openrouter 502 flat", source: "github.com/anomalyco/opencode/issues/22448",
		status: 502, body: `{"code":502,"message":"Network connection lost.","metadata":{"error_type":"provider_unavailable"}}`,
		class: ClassTransient, provider: "openrouter", message: "Network connection lost.",
	},
	{
		name: "openrouter 503 upstream", source: "github.com/truefoundry/models/pull/868 (OpenRouter's metadata as quoted there)",
		status: 503, body: `{"error":{"message":"Provider returned error","code":503,"metadata":{"raw":{"error":{"type":"Service Unavailable","code":"no_available_workers","message":"No available workers (all circuits open or unhealthy)"}},"provider_name":"Morph","is_byok":false}}}`,
		class: ClassOverloaded, provider: "openrouter", message: "(Morph: No available workers",
	},
	{
		name: "openrouter 404 no endpoints", source: "github.com/chatboxai/chatbox/issues/2743",
		status: 404, body: `{ "error": { "message": "No endpoints found for deepseek/deepseek-chat-v3.1:free.", "code": 404 }, "user_id": "user_2pPjrQhn6IzsURGjjb61gZqeF8d" }`,
		class: ClassModelNotFound, provider: "openrouter",
	},

	// Ollama.
	{
		name: "ollama /v1 model not found", source: "github.com/netease-youdao/QAnything/issues/555",
		status: 404, body: `{"error":{"message":"model \"ollama\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`,
		class: ClassModelNotFound, provider: "ollama", message: `model "ollama" not found, try pulling it first`,
	},
	{
		name: "ollama native model not found", source: "github.com/ollama/ollama/pull/718, github.com/FlowiseAI/Flowise/issues/2335",
		status: 404, body: `{"error":"model 'llama3:latest' not found, try pulling it first"}`,
		class: ClassModelNotFound, provider: "ollama", message: "model 'llama3:latest' not found",
	},
	{
		name: "ollama 500 context length", source: "github.com/ITSpecialist111/ai_automation_suggester/issues/37 (500), Ollama 0.12.6 body recorded in a public test",
		status: 500, body: `{"error":{"message":"the input length exceeds the context length","type":"api_error","param":null,"code":null}}`,
		class: ClassContextOverflow, provider: "ollama",
	},
	{
		name: "ollama quoting llama-server", source: "Ollama 0.34/0.40 body recorded in a public test (llama-server's error as a string)",
		status: 400, body: `{"error":"{\"error\":{\"code\":400,\"message\":\"request (2622 tokens) exceeds the available context size (512 tokens), try increasing it\",\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":2622,\"n_ctx\":512}}"}`,
		class: ClassContextOverflow, message: "request (2622 tokens) exceeds the available context size (512 tokens)",
	},
	{
		name: "ollama 503 busy", source: "github.com/ollama/ollama/issues/4159, 503 since github.com/ollama/ollama/pull/4144",
		status: 503, body: `{"error":{"message":"server busy, please try again.  maximum pending requests exceeded","type":"api_error","param":null,"code":null}}`,
		class: ClassOverloaded, provider: "ollama", message: "server busy, please try again. maximum pending requests exceeded",
	},
	{
		name: "ollama cloud overloaded", source: "github.com/ollama/ollama/issues/15934",
		status: 503, body: `{"error":"Server overloaded, please retry shortly (ref: aaa65c70-cfa0-446b-86f1-4ab0e2deb9e4)"}`,
		class: ClassOverloaded,
	},

	// vLLM.
	{
		name: "vllm context length, flat body", source: "github.com/meta-llama/llama-verifications/issues/58",
		status: 400, body: `{"object":"error","message":"This model's maximum context length is 131072 tokens. However, you requested 156632 tokens (152536 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
		class: ClassContextOverflow, provider: "vllm", message: "However, you requested 156632 tokens",
	},
	{
		name: "vllm 0.16 context length", source: "github.com/harbor-framework/harbor/pull/996",
		status: 400, body: `{"error":{"message":"You passed 1015 input tokens and requested 10 output tokens. However, the model's context length is only 1024 tokens, resulting in a maximum input length of 1014 tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value=1015)","type":"BadRequestError","param":"input_tokens","code":400}}`,
		class: ClassContextOverflow, provider: "vllm",
	},
	{
		name: "vllm other bad request", source: "github.com/vllm-project/vllm/issues/4667",
		status: 400, body: `{"object":"error","message":"max_tokens must be at least 1, got -186.","type":"BadRequestError","param":null,"code":400}`,
		class: ClassBadRequest, provider: "vllm", message: "max_tokens must be at least 1",
	},

	// llama.cpp server.
	{
		name: "llama.cpp exceed_context_size_error", source: "llama-server's format_error_response, as quoted in a public context-size write-up",
		status: 400, body: `{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}`,
		class: ClassContextOverflow, provider: "llama.cpp",
	},
	{
		name: "llama.cpp older wording", source: "github.com/jshawtime/saywhatwant docs/228-LLAMACPP-CONTEXT-SIZE-DEBUGGING.md",
		status: 400, body: `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`,
		class: ClassContextOverflow, provider: "llama.cpp",
	},
	{
		name: "llama.cpp loading model", source: "github.com/mostlygeek/llama-swap/issues/146",
		status: 503, body: `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`,
		class: ClassOverloaded, provider: "llama.cpp", message: "Loading model",
	},

	// Whatever sits in between.
	{
		name: "proxy HTML page", source: "nginx's default 502 page",
		status: 502, header: map[string]string{"Content-Type": "text/html"},
		body:  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
		class: ClassTransient,
	},
	{
		name: "go mux at a wrong path", source: "Go's http.NotFound, what Ollama answers at /v1/v1/chat/completions",
		status: 404, header: map[string]string{"Content-Type": "text/plain; charset=utf-8"},
		body:  "404 page not found\n",
		class: ClassModelNotFound, message: "404 page not found",
	},
}

func TestClassifyRealBodies(t *testing.T) {
	for _, tc := range realBodies {
		t.Run(tc.name, func(t *testing.T) {
			bothModes(t, func(t *testing.T, stream bool) {
				header := map[string]string{"Content-Type": "application/json"}
				for k, v := range tc.header {
					header[k] = v
				}
				srv := fakeai.New(t)
				srv.Handle(func(fakeai.Request) fakeai.Reply {
					return fakeai.Reply{Status: tc.status, Header: header, RawBody: tc.body}
				})
				h := newHarness(t, srv, stream, 0)
				_, _, err := h.complete(context.Background())
				e := Classify(err)
				if e.Class != tc.class || e.Status != tc.status {
					t.Fatalf("class %v status %d, want %v %d (err %v)", e.Class, e.Status, tc.class, tc.status, err)
				}
				if tc.provider != "" && e.Provider != tc.provider {
					t.Errorf("provider %q, want %q", e.Provider, tc.provider)
				}
				if !strings.Contains(e.Message, tc.message) {
					t.Errorf("message %q lacks %q", e.Message, tc.message)
				}
				if tc.after != 0 && (!e.HasRetryAfter || e.RetryAfter != tc.after) {
					t.Errorf("Retry-After %v %v, want %v", e.RetryAfter, e.HasRetryAfter, tc.after)
				}
				want := 1
				if tc.class.Retryable() && tc.after <= maxRetryAfter {
					want = maxAttempts
				}
				if n := len(srv.Requests()); n != want {
					t.Errorf("%d requests, want %d", n, want)
				}
				if tc.after != 0 && tc.after <= maxRetryAfter && (len(h.sleeps) == 0 || h.sleeps[0] != tc.after) {
					t.Errorf("slept %v, want %v first", h.sleeps, tc.after)
				}
				if d := h.describe(err); d == "" || strings.Contains(d, "sk-test-secret") || strings.Contains(d, "<html>") {
					t.Errorf("Describe = %q", d)
				}
			})
		})
	}
}

func TestDescribeByClass(t *testing.T) {
	find := func(name string) bodyCase {
		for _, tc := range realBodies {
			if tc.name == name {
				return tc
			}
		}
		t.Fatalf("no case %q", name)
		return bodyCase{}
	}
	for _, tt := range []struct{ name, want string }{
		{"openai insufficient_quota", "out of credits or quota (429): You exceeded your current quota, please check your plan and billing details."},
		{"azure content_filter", "the provider's content filter refused the request (400): The response was filtered"},
		{"vllm context length, flat body", "the conversation no longer fits the model's context (400): This model's maximum context length is 131072 tokens."},
		{"ollama native model not found", "model m not found at URL (404): model 'llama3:latest' not found, try pulling it first"},
		{"llama.cpp loading model", "the model server is busy (503): Loading model (gave up after 4 attempts)"},
		{"openrouter 402 credits", "out of credits or quota (402): Insufficient credits."},
		{"proxy HTML page", "API error 502 (server error) from URL (gave up after 4 attempts)"},
	} {
		tc := find(tt.name)
		srv := fakeai.New(t)
		srv.Handle(func(fakeai.Request) fakeai.Reply {
			return fakeai.Reply{Status: tc.status, Header: map[string]string{"Content-Type": "application/json"}, RawBody: tc.body}
		})
		h := newHarness(t, srv, true, 0)
		_, _, err := h.complete(context.Background())
		want := strings.ReplaceAll(tt.want, "URL", srv.URL)
		if got := h.describe(err); !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n got %q\nwant %q…", tt.name, got, want)
		}
	}
}

// An error event inside a 200 stream (OpenRouter, llama.cpp) is classified
// by its own code.
func TestClassifyErrorInStream(t *testing.T) {
	for _, tt := range []struct {
		data     string
		class    ErrorClass
		n        int
		describe string
	}{
		// github.com/anomalyco/opencode/issues/22448: a mid-stream 502.
		{`{"error":{"code":502,"message":"Network connection lost.","metadata":{"error_type":"provider_unavailable"}}}`, ClassTransient, maxAttempts,
			"API error 502: Network connection lost. (gave up after 4 attempts)"},
		{`{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`, ClassContextOverflow, 1,
			"the conversation no longer fits the model's context (400): the request exceeds"},
		{`{"error":{"message":"something odd"}}`, ClassTransient, maxAttempts,
			"the model API reported an error in the stream: something odd (gave up after 4 attempts)"},
	} {
		srv := fakeai.New(t)
		srv.Handle(func(fakeai.Request) fakeai.Reply {
			return fakeai.Reply{RawBody: "data: " + tt.data + "\n\n", Header: map[string]string{"Content-Type": "text/event-stream"}}
		})
		h := newHarness(t, srv, true, 0)
		_, _, err := h.complete(context.Background())
		if e := Classify(err); e.Class != tt.class {
			t.Errorf("%s: class %v, want %v (err %v)", tt.data, e.Class, tt.class, err)
		}
		if d := h.describe(err); !strings.HasPrefix(d, tt.describe) {
			t.Errorf("%s: Describe = %q, want %q…", tt.data, d, tt.describe)
		}
		if n := len(srv.Requests()); n != tt.n {
			t.Errorf("%s: %d requests, want %d", tt.data, n, tt.n)
		}
	}
}

// Ollama's native 404 used to read as "not JSON"; now another model is
// tried, as for any missing model.
func TestOllamaMissingModelFallsBack(t *testing.T) {
	srv := fakeai.New(t)
	srv.Handle(func(req fakeai.Request) fakeai.Reply {
		if req.Model == "m" {
			return fakeai.Reply{Status: 404, RawBody: `{"error":"model 'm' not found, try pulling it first"}`}
		}
		return fakeai.Reply{Content: "from " + req.Model}
	})
	h := newHarness(t, srv, true, 0, "backup")
	r, _, err := h.complete(context.Background())
	if err != nil || r.Content != "from backup" {
		t.Fatalf("%q, %v", r.Content, err)
	}
	if len(h.notes) != 1 || h.notes[0] != "falling back to model backup (m: 404 not found)" {
		t.Errorf("notes %q", h.notes)
	}
}

// A context overflow in a provider's own words compresses the history and
// retries, as OpenAI's context_length_exceeded does.
func TestOverflowInOtherWordsCompresses(t *testing.T) {
	for _, name := range []string{"vllm context length, flat body", "ollama 500 context length", "ollama quoting llama-server"} {
		var tc bodyCase
		for _, c := range realBodies {
			if c.name == name {
				tc = c
			}
		}
		srv := fakeai.New(t,
			fakeai.Reply{Content: openFile("a.txt")},
			fakeai.Reply{Status: tc.status, RawBody: tc.body},
			fakeai.Reply{Content: "SUMMARY"},
			fakeai.Reply{Content: "answer after compression"},
		)
		a, _, _ := newAgent(t, srv, true)
		if got, err := a.Run(context.Background(), "q"); err != nil || got != "answer after compression" {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
}

func TestClassifyWithoutHTTP(t *testing.T) {
	for _, tt := range []struct {
		err   error
		class ErrorClass
	}{
		{nil, ClassUnknown},
		{errors.New("something else"), ClassUnknown},
		{context.Canceled, ClassCanceled},
		{&IdleError{After: time.Second}, ClassTransient},
		{&ParseError{Raw: "<html>"}, ClassBadResponse},
		{ErrStreamCut, ClassTransient},
		// Built by hand, as the existing Describe tests do.
		{&openai.Error{StatusCode: 529}, ClassOverloaded},
		{&openai.Error{StatusCode: 400, Code: "context_length_exceeded"}, ClassContextOverflow},
		{&CallError{Model: "m", Attempts: 1, Err: &openai.Error{StatusCode: 413}}, ClassContextOverflow},
	} {
		if got := Classify(tt.err).Class; got != tt.class {
			t.Errorf("Classify(%v) = %v, want %v", tt.err, got, tt.class)
		}
	}
}

// The key is redacted from the server's words even when it echoes it.
func TestClassifyRedactsTheKey(t *testing.T) {
	srv := fakeai.New(t)
	srv.Handle(func(fakeai.Request) fakeai.Reply {
		return fakeai.Reply{Status: 400, RawBody: `{"error":{"message":"bad header Bearer sk-test-secret","type":"invalid_request_error"}}`}
	})
	h := newHarness(t, srv, false, 0)
	_, _, err := h.complete(context.Background())
	if e := Classify(err); strings.Contains(e.Message, "sk-test-secret") || !strings.Contains(e.Message, "[redacted]") {
		t.Errorf("message %q", e.Message)
	}
	if d := h.describe(err); strings.Contains(d, "sk-test-secret") {
		t.Errorf("Describe = %q", d)
	}
}

// BenchmarkClassify reads every real body once per iteration, as the
// retry loop does after each failed attempt.
func BenchmarkClassify(b *testing.B) {
	errs := make([]error, len(realBodies))
	for i, tc := range realBodies {
		errs[i] = &CallError{Model: "m", Attempts: 1, Err: &StatusError{Status: tc.status, Body: tc.body, Err: errors.New("sdk")}}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, err := range errs {
			if Classify(err).Class == ClassUnknown {
				b.Fatal("unknown")
			}
		}
	}
}
