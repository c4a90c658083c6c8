package session

import (
	"testing"

	"github.com/aci-dev/aci/tools/settings"
)

// The provider's search is asked only where the endpoint is known to
// offer it, or where the person's settings say it speaks OpenAI's.
func TestProviderSearchModel(t *testing.T) {
	tests := []struct {
		cfg  settings.Search
		base string
		want string
	}{
		{settings.Search{}, "https://api.openai.com/v1", "gpt-4o-mini-search-preview"},
		{settings.Search{}, "https://openrouter.ai/api/v1", "openai/gpt-4o-mini-search-preview"},
		{settings.Search{}, "http://127.0.0.1:8080/v1", ""},
		{settings.Search{Model: "gpt-5-search-api"}, "http://127.0.0.1:8080/v1", ""},
		{settings.Search{Model: "gpt-5-search-api"}, "https://api.openai.com/v1", "gpt-5-search-api"},
		{settings.Search{Provider: "off"}, "https://api.openai.com/v1", ""},
		{settings.Search{Provider: "openai"}, "https://gateway.example/v1", "gpt-4o-mini-search-preview"},
		{settings.Search{Provider: "openai", Model: "m"}, "https://gateway.example/v1", "m"},
	}
	for _, tt := range tests {
		if got := providerSearchModel(tt.cfg, tt.base); got != tt.want {
			t.Errorf("%+v at %s: %q, want %q", tt.cfg, tt.base, got, tt.want)
		}
	}
}
