package main

import (
	"os"
	"strings"

	"github.com/joho/godotenv"

	"github.com/aci-dev/aci/session"
)

// A key goes only where the person sent it (docs/protocol.md §2 "Endpoints and
// keys"): the API key from the environment or the person's own file
// (userEnvPath) is sent only to an endpoint the environment or the
// person's file names, or to the default. A workspace's .env may name an
// endpoint together with its own key in the same file (that key is then
// the one sent, even where the environment holds another), or in a
// folder the person trusted with a question that named the endpoint.
// Otherwise the session refuses to start (session.EndpointError), in
// every front end alike; --trust does not cover it, since it asks
// nothing. Project settings never name an endpoint (their providers are
// ignored: tools/settings/models.go).

// checkEndpointKey finds a workspace .env's endpoint paired with the
// person's key: it pairs the endpoint with the file's own key when the
// file has one, and otherwise holds the endpoint for the session to
// refuse unless the folder is trusted.
func checkEndpointKey(l *loading, _ settingInput) error {
	c := l.c
	ws := absPath(".env")
	if c.Found != "" || fromEnvironment("OPENAI_BASE_URL") || fileOf["OPENAI_BASE_URL"] != ws || c.APIKey == "" {
		return nil // the person's endpoint, a discovered one, or no key of anyone's
	}
	if fileOf["OPENAI_API_KEY"] == ws && !fromEnvironment("OPENAI_API_KEY") {
		return nil // the file's own key goes to the file's endpoint
	}
	if vars, err := godotenv.Read(ws); err == nil && strings.TrimSpace(vars["OPENAI_API_KEY"]) != "" {
		// The environment's key would win over the file's: the file's
		// endpoint gets the file's key instead, never the person's.
		c.APIKey = strings.TrimSpace(vars["OPENAI_API_KEY"])
		return nil
	}
	from := "your environment"
	if !fromEnvironment("OPENAI_API_KEY") && fileOf["OPENAI_API_KEY"] != "" {
		from = tilde(fileOf["OPENAI_API_KEY"])
	}
	wd, _ := os.Getwd()
	c.Endpoint = session.EndpointHold{Dir: wd, URL: c.BaseURL, File: ws, KeyFrom: from, UserEnv: tilde(userEnvPath())}
	return nil
}
