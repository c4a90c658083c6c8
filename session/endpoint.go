package session

import (
	"fmt"
	"path/filepath"
)

// EndpointHold is a model endpoint a workspace's .env named while the key
// aci holds is the person's (docs/protocol.md §2 "Endpoints and keys"): no
// session starts with it until the person trusted the folder with a
// question naming it (FolderCode's EndpointLine).
type EndpointHold struct {
	Dir     string // the folder whose .env named it
	URL     string
	File    string // that .env
	KeyFrom string // where the key came from: "your environment", or the person's file
	UserEnv string // the person's own file of settings, for the message
}

// EndpointError is a session refused because its endpoint came from a
// workspace's file and its key from the person.
type EndpointError struct{ Hold EndpointHold }

func (e *EndpointError) Error() string {
	h := e.Hold
	return fmt.Sprintf("refused: OPENAI_BASE_URL in %s names %s, and the API key aci holds is yours (from %s): a workspace's file may name "+
		"an endpoint only with its own key in the same file, or once you trust the folder with that endpoint. "+
		"Put the key for that server in %s as OPENAI_API_KEY, set OPENAI_BASE_URL in your environment or your own %s, "+
		"or start aci at a terminal (or aci serve's page) here and trust the folder when it asks (--trust does not cover the endpoint)",
		h.File, h.URL, h.KeyFrom, filepath.Base(h.File), h.UserEnv)
}

// Unwrap makes it a usage error: exit 2 in pipe mode.
func (e *EndpointError) Unwrap() error { return ErrUsage }

// checkEndpoint refuses the held endpoint unless the folder that named it
// is trusted as it is now, endpoint included.
func (f *Factory) checkEndpoint() error {
	h := f.cfg.Endpoint
	if h.URL == "" {
		return nil
	}
	code := f.FolderCode(h.Dir)
	if code.Endpoint == h.URL && code.Trusted(h.Dir) {
		return nil
	}
	return &EndpointError{Hold: h}
}
