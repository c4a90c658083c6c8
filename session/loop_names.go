package session

import (
	"context"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/transcript"
)

// What front ends name of the loop and of the stored transcripts, said
// here so that they import session and never agent (a test checks:
// arch_test.go). The values are agent's own: an error compares with
// errors.Is as it did.

// ClientConfig configures the model client (Config.Client).
type ClientConfig = agent.ClientConfig

// AgentConfig is the loop's settings (Config.Agent).
type AgentConfig = agent.Config

// Provider is a model provider of the settings, reached as NAME/MODEL.
type Provider = agent.Provider

// Price is a model's price per million tokens, from the settings.
type Price = agent.Price

// LocalServer is a model server aci looks for on this machine.
type LocalServer = agent.LocalServer

// NoServerError says no local model server answered.
type NoServerError = agent.NoServerError

// NoKeyError is a provider's model named while its key variable is unset.
type NoKeyError = agent.ErrNoKey

// LockedError is a session another aci has open.
type LockedError = transcript.LockedError

// Stored is a session as its transcript holds it.
type Stored = agent.Session

// Errors about stored sessions.
var (
	ErrNoSession = agent.ErrNoSession
	ErrLocked    = transcript.ErrLocked
)

// LocalServers are the local model servers discovery tries, in order.
var LocalServers = agent.LocalServers

// DefaultCacheTTL is the prompt cache's lifetime aci assumes.
const DefaultCacheTTL = agent.DefaultCacheTTL

// ParseEffort checks a reasoning effort level; "" is the model's default.
func ParseEffort(level string) (string, error) { return agent.ParseEffort(level) }

// SplitModels splits a comma-separated list of models (OPENAI_FALLBACK_MODELS).
func SplitModels(s string) []string { return agent.ModelList(s) }

// DescribeError is err in one line for a person, with what to do about
// it, for a client of baseURL asking for model.
func DescribeError(err error, baseURL, model string) string {
	return agent.Describe(err, baseURL, model)
}

// Discovered is a local model server found, and its models.
type Discovered = agent.Discovered

// Discover finds a local model server (of servers, in order, on host; ""
// is this machine); timeout 0 is the default.
func Discover(ctx context.Context, host string, servers []LocalServer, timeout time.Duration) (Discovered, error) {
	return agent.Discover(ctx, host, servers, timeout)
}

// SessionsDir is where transcripts are kept by default.
func SessionsDir() (string, error) { return transcript.Dir() }

// FindSession reads the stored session id of workdir ("" the latest).
func FindSession(dir, workdir, id string) (Stored, error) { return agent.FindSession(dir, workdir, id) }

// SessionPath is the transcript file of session id of workdir; with
// prefix, id may be the start of one.
func SessionPath(dir, workdir, id string, prefix bool) (string, error) {
	return agent.SessionPath(dir, workdir, id, prefix)
}
