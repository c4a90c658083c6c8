package gitconf

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Parse lists the entries of config data as git itself reads them (git
// config --file - --list --null, no include followed): what is judged is
// what git obeys, whatever the file's spelling. An error means git cannot
// read it: nothing of it can be kept.
func Parse(ctx context.Context, data []byte) ([]Entry, error) {
	cmd := exec.CommandContext(ctx, "git", "config", "--file", "-", "--no-includes", "--null", "--list")
	cmd.Stdin = bytes.NewReader(data)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C")
	cmd.Dir = os.TempDir()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git config: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	var entries []Entry
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		key, val, hasVal := strings.Cut(rec, "\n")
		entries = append(entries, Entry{Key: key, Value: val, NoValue: !hasVal})
	}
	return entries, nil
}

// Render writes entries as a config file git reads back as the same
// entries, in the same order.
func Render(entries []Entry) []byte {
	var b strings.Builder
	last := "\x00"
	for _, e := range entries {
		sec, sub, _, ok := split(e.Key)
		if !ok {
			continue
		}
		name := e.Key[strings.LastIndexByte(e.Key, '.')+1:]
		if head := sec + "\x00" + sub; head != last {
			last = head
			if sub == "" {
				fmt.Fprintf(&b, "[%s]\n", sec)
			} else {
				fmt.Fprintf(&b, "[%s \"%s\"]\n", sec, quote(sub))
			}
		}
		if e.NoValue {
			fmt.Fprintf(&b, "\t%s\n", name)
		} else {
			fmt.Fprintf(&b, "\t%s = \"%s\"\n", name, quote(e.Value))
		}
	}
	return []byte(b.String())
}

// quote escapes what git's config syntax gives meaning to.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return r.Replace(s)
}

// Diff lists what changed from before to now, each side as a multiset
// of entries: added are in now and not before, removed the reverse.
func Diff(before, now []Entry) (added, removed []Entry) {
	return minus(now, before), minus(before, now)
}

// minus is the entries of a that b does not hold, as multisets.
func minus(a, b []Entry) []Entry {
	count := map[Entry]int{}
	for _, e := range b {
		count[e]++
	}
	var out []Entry
	for _, e := range a {
		if count[e] > 0 {
			count[e]--
			continue
		}
		out = append(out, e)
	}
	return out
}
