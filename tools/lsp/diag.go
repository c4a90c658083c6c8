package lsp

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
)

// Severity is LSP's: 1 error, 2 warning, 3 information, 4 hint.
type Severity int

const (
	Error   Severity = 1
	Warning Severity = 2
)

// Diagnostic is one of a server's diagnostics, positions from 1.
type Diagnostic struct {
	Line, Col int
	Severity  Severity
	Message   string
}

type lspDiagnostic struct {
	Range struct {
		Start struct {
			Line      int `json:"line"`
			Character int `json:"character"`
		} `json:"start"`
	} `json:"range"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

type publishParams struct {
	URI         string          `json:"uri"`
	Version     *int            `json:"version"`
	Diagnostics []lspDiagnostic `json:"diagnostics"`
}

// parsePublish keeps the errors and warnings of a publishDiagnostics (a
// missing severity is the client's to choose: an error).
func parsePublish(raw json.RawMessage) (publishParams, []Diagnostic, error) {
	var p publishParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, nil, err
	}
	var out []Diagnostic
	for _, d := range p.Diagnostics {
		sev := d.Severity
		if sev == 0 {
			sev = Error
		}
		if sev > Warning {
			continue
		}
		out = append(out, Diagnostic{Line: d.Range.Start.Line + 1, Col: d.Range.Start.Character + 1, Severity: sev,
			Message: oneLine(d.Message)})
	}
	return p, out, nil
}

// oneLine keeps a message to its first line, bounded.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// fileURI is path as a file: URI.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath is the path of a file: URI, or "" for another kind.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}
