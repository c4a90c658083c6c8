package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces a secret in text shown to the model or printed.
const Redacted = "[REDACTED]"

// minSecretLen is the shortest value treated as a secret: shorter ones
// (a port, "true") would blank out ordinary text.
const minSecretLen = 8

// Redactor removes secrets from text in the forms they commonly take on
// the way out: plain, JSON-escaped, URL-encoded, base64 (standard and URL
// alphabets, padded or not, at any of the 3 byte alignments inside a
// longer encoded stream, as in an HTTP Basic header) and hex. It is safe
// for concurrent use; the zero value redacts nothing.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string
	forms   []string // every encoded form, longest first
	// formBytes are forms as bytes, for ContainsBytes.
	formBytes [][]byte
	r         *strings.Replacer
}

// NewRedactor returns a Redactor for secrets; values shorter than 8
// characters are ignored.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add makes more values secret.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := false
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen || slices.Contains(r.secrets, s) {
			continue
		}
		r.secrets = append(r.secrets, s)
		for _, f := range encodedForms(s) {
			if len(f) >= minSecretLen && !slices.Contains(r.forms, f) {
				r.forms = append(r.forms, f)
			}
		}
		changed = true
	}
	if !changed {
		return
	}
	// Longest first, so a form is not half-replaced by a shorter one.
	slices.SortFunc(r.forms, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.forms))
	r.formBytes = r.formBytes[:0]
	for _, f := range r.forms {
		pairs = append(pairs, f, Redacted)
		r.formBytes = append(r.formBytes, []byte(f))
	}
	r.r = strings.NewReplacer(pairs...)
}

// Redact returns s with every form of every secret replaced by [REDACTED].
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	rep := r.r
	r.mu.RUnlock()
	if rep == nil || s == "" {
		return s
	}
	return rep.Replace(s)
}

// Empty reports whether r has no secret to look for.
func (r *Redactor) Empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.forms) == 0
}

// Values returns the secrets themselves (not their encoded forms).
func (r *Redactor) Values() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.secrets)
}

// ContainsBytes is Contains for file content.
func (r *Redactor) ContainsBytes(b []byte) bool {
	if r == nil {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, f := range r.formBytes {
		if bytes.Contains(b, f) {
			return true
		}
	}
	return false
}

// WithoutValues returns env ("NAME=value" entries) without the entries
// whose value is one of r's secrets, whatever the name: a command must not
// inherit a secret under a name that does not say so.
func (r *Redactor) WithoutValues(env []string) []string {
	vals := r.Values()
	if len(vals) == 0 {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		_, v, _ := strings.Cut(kv, "=")
		if !slices.Contains(vals, strings.TrimSpace(v)) {
			out = append(out, kv)
		}
	}
	return out
}

// Contains reports whether s holds any form of a secret.
func (r *Redactor) Contains(s string) bool {
	if r == nil {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// encodedForms lists the ways s may appear in output.
func encodedForms(s string) []string {
	forms := []string{s}
	if j, err := json.Marshal(s); err == nil {
		forms = append(forms, string(j[1:len(j)-1]))
	}
	// JSON encoders that escape the slash, and ones that leave HTML alone.
	forms = append(forms, strings.ReplaceAll(s, "/", `\/`), jsonNoHTML(s))
	forms = append(forms, url.QueryEscape(s), url.PathEscape(s), strings.ReplaceAll(url.QueryEscape(s), "+", "%20"))
	forms = append(forms, hex.EncodeToString([]byte(s)), strings.ToUpper(hex.EncodeToString([]byte(s))))
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		forms = append(forms, base64Forms(enc, []byte(s))...)
	}
	return forms
}

func jsonNoHTML(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if e.Encode(s) != nil {
		return s
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// base64Forms are the characters of s's base64 that depend on s alone, for
// s starting at byte offset 0, 1 and 2 (mod 3) of the encoded stream: a
// secret inside "user:secret" encodes differently at each offset, and
// characters that mix in neighbouring bytes are left out.
func base64Forms(enc *base64.Encoding, s []byte) []string {
	var forms []string
	for k := 0; k < 3; k++ {
		buf := append(make([]byte, k), s...)
		e := enc.EncodeToString(buf)
		start := (k*8 + 5) / 6  // first character whose 6 bits are all in s
		end := len(buf) * 8 / 6 // characters wholly before the end of s
		if end-start >= minSecretLen {
			forms = append(forms, e[start:end])
		}
	}
	// The whole padded encoding, when s is the whole stream.
	forms = append(forms, enc.WithPadding(base64.StdPadding).EncodeToString(s))
	return forms
}
