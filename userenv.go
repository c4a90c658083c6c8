package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/joho/godotenv"

	"github.com/aci-dev/aci/internal/dirs"
	"github.com/aci-dev/aci/session"
)

// userEnvPath is the person's own file of aci settings and key, in aci's
// config folder beside settings.json: $XDG_CONFIG_HOME/aci/.env, by
// default ~/.config/aci/.env. "" when there is no home.
func userEnvPath() string {
	return dirs.ConfigFile(".env")
}

// envSource is one file aci read its settings from, for the no-key
// message: where, and what was found.
type envSource struct {
	path  string
	found bool // the file exists
	key   bool // it sets OPENAI_API_KEY
}

// fromFiles are the variables aci set from its env files, with their
// values: a second loadConfig (after the key set-up) tells them from the
// person's environment, which they must not be mistaken for.
var fromFiles = map[string]string{}

// fileOf is the file each variable in fromFiles came from: where an
// endpoint and a key came from decides whether the key may go there
// (config_endpoint.go).
var fileOf = map[string]string{}

// loadEnvFiles sets aci's own variables (OPENAI_*, ACI_*) from the files
// in order, the first file that sets one winning, and none overriding the
// environment; never the safety switches. It returns what it set and what
// it found in each file.
func loadEnvFiles(stderr io.Writer, paths ...string) (map[string]string, []envSource, error) {
	set := map[string]string{}
	var sources []envSource
	for _, path := range paths {
		if path == "" {
			continue
		}
		src := envSource{path: path}
		vars, err := godotenv.Read(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			sources = append(sources, src)
			continue
		case err != nil:
			return nil, nil, usageErr("read %s: %v", path, err)
		}
		src.found = true
		src.key = vars["OPENAI_API_KEY"] != ""
		sources = append(sources, src)
		warnReadable(stderr, path, vars)
		for k, v := range vars {
			// An empty entry sets nothing: OPENAI_API_KEY= in a folder's
			// .env must not hide the person's key.
			if safetySwitches[strings.ToUpper(k)] || !ownVar(k) || v == "" {
				continue
			}
			if _, done := set[k]; done || fromEnvironment(k) {
				continue
			}
			if err := os.Setenv(k, v); err != nil {
				return nil, nil, usageErr("read %s: %s: %v", path, k, err)
			}
			set[k], fromFiles[k], fileOf[k] = v, v, path
		}
	}
	return set, sources, nil
}

// fromEnvironment reports whether the person's environment sets name: an
// empty value counts as unset (an exported OPENAI_API_KEY= is an accident,
// not a choice), and a value an earlier load took from a file is not the
// environment's.
func fromEnvironment(name string) bool {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return false
	}
	if f, loaded := fromFiles[name]; loaded && f == v {
		return false
	}
	return true
}

// warnReadable says when the person's file holding a key can be read by
// others: ssh refuses such files; aci still reads it, and says how to fix.
func warnReadable(stderr io.Writer, path string, vars map[string]string) {
	if path != userEnvPath() || vars["OPENAI_API_KEY"] == "" {
		return
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(stderr, "aci: %s holds your API key and others can read it: chmod 600 %s\n", tilde(path), tilde(path))
	}
}

// noKeyError is a missing API key: it names the files aci looked in and
// how to set the key once, in a few short lines.
type noKeyError struct {
	host    string // the endpoint the key is for
	sources []envSource
	user    string                // the person's file, where a key set once goes
	tried   []session.LocalServer // local servers probed in vain, when discovery ran
}

func (e *noKeyError) Error() string {
	var b strings.Builder
	b.WriteString(e.looked())
	if e.user != "" {
		b.WriteString("Set it once for every folder: run aci on a terminal and paste it,\n")
		fmt.Fprintf(&b, "or put OPENAI_API_KEY=sk-... in %s (chmod 600).", tilde(e.user))
	} else {
		b.WriteString("Export OPENAI_API_KEY, or put it in .env in this folder.")
	}
	if len(e.tried) > 0 {
		var names []string
		for _, s := range e.tried {
			names = append(names, fmt.Sprintf("%s :%d", s.Name, s.Port))
		}
		start := session.LocalServers[0].Start
		if e.tried[0].Start != "" {
			start = e.tried[0].Start
		}
		b.WriteString("\n" + wrap(fmt.Sprintf("No local model server answered either (tried %s): start one (%s) or set OPENAI_BASE_URL to it.", strings.Join(names, ", "), start), 76))
	}
	return b.String()
}

// looked says what is missing and where aci looked, a line each.
func (e *noKeyError) looked() string {
	var b strings.Builder
	fmt.Fprintf(&b, "OPENAI_API_KEY is not set (the key for %s). Looked in:\n", e.host)
	b.WriteString("  the environment\n")
	for _, s := range e.sources {
		why := "no such file"
		if s.found {
			why = "no OPENAI_API_KEY in it"
		}
		fmt.Fprintf(&b, "  %s (%s)\n", tilde(s.path), why)
	}
	return b.String()
}

// wrap breaks text into lines of at most width bytes, between words.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// tilde shortens a path under the home folder to ~/…, as people write it.
func tilde(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return path
	}
	if rel, err := filepath.Rel(home, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return filepath.Join("~", rel)
	}
	return path
}
