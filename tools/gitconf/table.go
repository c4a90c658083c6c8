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

// table is every setting a command may leave in a git config file. A key
// not here is taken out. Keep each row inert: nothing git runs, loads,
// reads or reaches because of it but what the rest of the table allows.
var table = []rule{
	{key: "core.repositoryformatversion", kind: number, why: "the format git checks"},
	{key: "core.bare", kind: boolean, why: "whether there is a work tree"},
	{key: "core.filemode", kind: boolean, why: "whether the executable bit is tracked"},
	{key: "core.ignorecase", kind: boolean, why: "file system behaviour"},
	{key: "core.precomposeunicode", kind: boolean, why: "file system behaviour"},
	{key: "core.symlinks", kind: boolean, why: "file system behaviour"},
	{key: "core.logallrefupdates", kind: oneOf, words: []string{"always"}, bools: true, why: "reflog keeping"},
	{key: "core.autocrlf", kind: oneOf, words: []string{"input"}, bools: true, why: "line ending conversion, done by git itself"},
	{key: "core.eol", kind: oneOf, words: []string{"lf", "crlf", "native"}, why: "line ending conversion"},
	{key: "core.safecrlf", kind: oneOf, words: []string{"warn"}, bools: true, why: "a check"},
	{key: "core.sparsecheckout", kind: boolean, why: "which paths are checked out"},
	{key: "core.sparsecheckoutcone", kind: boolean, why: "sparse pattern style"},
	{key: "core.worktree", kind: insideTree, why: "a submodule's git folder names its work tree; outside the workspace it is not inert"},
	{key: "extensions.objectformat", kind: oneOf, words: []string{"sha1", "sha256"}, why: "hash of the repository"},
	{key: "extensions.refstorage", kind: oneOf, words: []string{"files", "reftable"}, why: "ref storage format"},
	{key: "extensions.worktreeconfig", kind: boolean, why: "config.worktree is read: judged by this table too"},
	{key: "extensions.preciousobjects", kind: boolean, why: "keeps objects"},
	{key: "extensions.partialclone", kind: remoteRef, why: "the promisor remote: its URL is judged"},
	{key: "branch.*.remote", kind: remoteRef, why: "upstream remote (a name, or a URL judged as one)"},
	{key: "branch.*.pushremote", kind: remoteRef, why: "push remote"},
	{key: "branch.*.merge", kind: anyText, why: "upstream ref name"},
	{key: "branch.*.rebase", kind: oneOf, words: []string{"merges"}, bools: true, why: "pull style"},
	{key: "branch.*.description", kind: anyText, why: "text"},
	{key: "remote.*.url", kind: remoteURL, why: "fetch URL of an ordinary transport"},
	{key: "remote.*.pushurl", kind: remoteURL, why: "push URL of an ordinary transport"},
	{key: "remote.*.fetch", kind: anyText, why: "refspec"},
	{key: "remote.*.push", kind: anyText, why: "refspec"},
	{key: "remote.*.tagopt", kind: oneOf, words: []string{"--no-tags", "--tags"}, why: "tag following"},
	{key: "remote.*.prune", kind: boolean, why: "fetch option"},
	{key: "remote.*.prunetags", kind: boolean, why: "fetch option"},
	{key: "remote.*.mirror", kind: boolean, why: "push option"},
	{key: "remote.*.skipdefaultupdate", kind: boolean, why: "fetch option"},
	{key: "remote.*.promisor", kind: boolean, why: "partial clone: fetches from this remote's judged URL"},
	{key: "remote.*.partialclonefilter", kind: anyText, why: "object filter spec"},
	{key: "remote.pushdefault", kind: remoteRef, why: "default push remote"},
	{key: "submodule.*.url", kind: remoteURL, why: "submodule URL of an ordinary transport"},
	{key: "submodule.*.active", kind: boolean, why: "submodule is used"},
	{key: "submodule.*.branch", kind: anyText, why: "branch name"},
	{key: "submodule.*.update", kind: oneOf, words: []string{"checkout", "rebase", "merge", "none"}, why: "update style; !command is not allowed"},
	{key: "submodule.*.ignore", kind: oneOf, words: []string{"all", "dirty", "untracked", "none"}, why: "status option"},
	{key: "submodule.*.fetchrecursesubmodules", kind: oneOf, words: []string{"on-demand"}, bools: true, why: "fetch option"},
	{key: "submodule.*.shallow", kind: boolean, why: "clone depth"},
	{key: "user.name", kind: anyText, why: "identity text"},
	{key: "user.email", kind: anyText, why: "identity text"},
	{key: "pull.rebase", kind: oneOf, words: []string{"merges"}, bools: true, why: "pull style"},
	{key: "pull.ff", kind: oneOf, words: []string{"only"}, bools: true, why: "pull style"},
	{key: "merge.ff", kind: oneOf, words: []string{"only"}, bools: true, why: "merge style"},
	{key: "fetch.prune", kind: boolean, why: "fetch option"},
	{key: "push.default", kind: oneOf, words: []string{"nothing", "current", "upstream", "tracking", "simple", "matching"}, why: "push style"},
	{key: "push.autosetupremote", kind: boolean, why: "push option"},
	{key: "init.defaultbranch", kind: anyText, why: "branch name"},
	{key: "lfs.repositoryformatversion", kind: number, why: "git-lfs format marker (its filters are not allowed)"},
}
