// Package gitconf decides which git settings a contained command may
// leave in a repository's configuration. Git obeys its config when the
// person runs it later, outside any sandbox: a key may name a program
// (core.fsmonitor, an alias with !, a filter), a transport that runs one
// (remote.<name>.url = ext::sh -c ...), a file to read (include.path,
// core.attributesFile), or a place outside the workspace (core.worktree).
// So what passes is an allow-list of inert settings, one row per key
// pattern, each with the values it may take; everything else is taken
// out, and the reason named.
package gitconf

import (
	"maps"
	"slices"
)

// kind is what a row's value may be.
type kind int

const (
	anyText    kind = iota // any text without control characters
	boolean                // true/false/yes/no/on/off/1/0, or no value
	number                 // a decimal integer
	oneOf                  // one of the row's words (or a boolean, where bools is set)
	remoteURL              // an ordinary URL or path (remoteURLWhy)
	remoteRef              // a remote's name, or an ordinary URL
	insideTree             // a path that resolves inside the workspace
)

// rule is one allowed key pattern. Patterns are written as git config
// --list prints keys: section and key lower case, "*" for any subsection.
type rule struct {
	key   string
	kind  kind
	words []string // oneOf: the values allowed
	bools bool     // oneOf: a boolean too
	why   string   // why it is inert (for the reader of the table)
}

// table is every setting a command may leave in a git config file, by
// the kind of value each takes, with why the setting is inert. A key not
// here is taken out. Keep each row inert: nothing git runs, loads, reads
// or reaches because of it but what the rest of the table allows.
var table = slices.Concat(
	rows(boolean, map[string]string{
		"core.bare":                  "whether there is a work tree",
		"core.filemode":              "whether the executable bit is tracked",
		"core.ignorecase":            "file system behaviour",
		"core.precomposeunicode":     "file system behaviour",
		"core.symlinks":              "file system behaviour",
		"core.sparsecheckout":        "which paths are checked out",
		"core.sparsecheckoutcone":    "sparse pattern style",
		"extensions.worktreeconfig":  "config.worktree is read: judged by this table too",
		"extensions.preciousobjects": "keeps objects",
		"remote.*.prune":             "fetch option",
		"remote.*.prunetags":         "fetch option",
		"remote.*.mirror":            "push option",
		"remote.*.skipdefaultupdate": "fetch option",
		"remote.*.promisor":          "partial clone: fetches from this remote's judged URL",
		"submodule.*.active":         "submodule is used",
		"submodule.*.shallow":        "clone depth",
		"fetch.prune":                "fetch option",
		"push.autosetupremote":       "push option",
	}),
	rows(number, map[string]string{
		"core.repositoryformatversion": "the format git checks",
		"lfs.repositoryformatversion":  "git-lfs format marker (its filters are not allowed)",
	}),
	rows(anyText, map[string]string{
		"branch.*.merge":              "upstream ref name",
		"branch.*.description":        "text",
		"remote.*.fetch":              "refspec",
		"remote.*.push":               "refspec",
		"remote.*.partialclonefilter": "object filter spec",
		"submodule.*.branch":          "branch name",
		"user.name":                   "identity text",
		"user.email":                  "identity text",
		"init.defaultbranch":          "branch name",
	}),
	rows(remoteURL, map[string]string{
		"remote.*.url":     "fetch URL of an ordinary transport",
		"remote.*.pushurl": "push URL of an ordinary transport",
		"submodule.*.url":  "submodule URL of an ordinary transport",
	}),
	rows(remoteRef, map[string]string{
		"extensions.partialclone": "the promisor remote: its URL is judged",
		"branch.*.remote":         "upstream remote (a name, or a URL judged as one)",
		"branch.*.pushremote":     "push remote",
		"remote.pushdefault":      "default push remote",
	}),
	rows(insideTree, map[string]string{
		"core.worktree": "a submodule's git folder names its work tree; outside the workspace it is not inert",
	}),
	choices(map[string]choice{
		"core.logallrefupdates":              {why: "reflog keeping", bools: true, words: []string{"always"}},
		"core.autocrlf":                      {why: "line ending conversion, done by git itself", bools: true, words: []string{"input"}},
		"core.eol":                           {why: "line ending conversion", words: []string{"lf", "crlf", "native"}},
		"core.safecrlf":                      {why: "a check", bools: true, words: []string{"warn"}},
		"extensions.objectformat":            {why: "hash of the repository", words: []string{"sha1", "sha256"}},
		"extensions.refstorage":              {why: "ref storage format", words: []string{"files", "reftable"}},
		"branch.*.rebase":                    {why: "pull style", bools: true, words: []string{"merges"}},
		"remote.*.tagopt":                    {why: "tag following", words: []string{"--no-tags", "--tags"}},
		"submodule.*.update":                 {why: "update style; !command is not allowed", words: []string{"checkout", "rebase", "merge", "none"}},
		"submodule.*.ignore":                 {why: "status option", words: []string{"all", "dirty", "untracked", "none"}},
		"submodule.*.fetchrecursesubmodules": {why: "fetch option", bools: true, words: []string{"on-demand"}},
		"pull.rebase":                        {why: "pull style", bools: true, words: []string{"merges"}},
		"pull.ff":                            {why: "pull style", bools: true, words: []string{"only"}},
		"merge.ff":                           {why: "merge style", bools: true, words: []string{"only"}},
		"push.default":                       {why: "push style", words: []string{"nothing", "current", "upstream", "tracking", "simple", "matching"}},
	}),
)

// choice is a oneOf row's values and why.
type choice struct {
	why   string
	bools bool // a boolean too
	words []string
}

// rows are the rules for keys (pattern: why) whose values are of kind k.
func rows(k kind, keys map[string]string) []rule {
	var out []rule
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		out = append(out, rule{key: key, kind: k, why: keys[key]})
	}
	return out
}

// choices are the rules for keys whose value is one of some words.
func choices(keys map[string]choice) []rule {
	var out []rule
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		c := keys[key]
		out = append(out, rule{key: key, kind: oneOf, words: c.words, bools: c.bools, why: c.why})
	}
	return out
}
