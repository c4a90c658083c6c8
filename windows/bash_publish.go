package windows

import (
	"context"
	"time"

	"github.com/aci-dev/aci/tools/dotenv"
	"github.com/aci-dev/aci/tools/gitscan"
	"github.com/aci-dev/aci/tools/secrets"
)

// publishWhy looks, before a command commits, pushes, stages, stashes or
// otherwise stores content in git, at what it would store or publish: a secret value aci knows (its key, credential variables, what
// the workspace's .env files hold) or a file git ignores being
// force-added. It returns the reason to ask, naming the file and never the
// value; "" when nothing is found or the command publishes nothing. The
// guard finds the git commands (a pure reading of the command line);
// gitscan reads the repository.
func (w *bashWindow) publishWhy(ctx context.Context, command string) (why string) {
	defer func() {
		w.mu.Lock()
		w.asked = why
		w.mu.Unlock()
	}()
	pubs := w.env.Guard.Publishes(command, w.shell.Dir())
	publishes := false
	ops := make([]gitscan.Op, 0, len(pubs))
	for _, p := range pubs {
		dir := p.Dir
		if dir == "" {
			dir = w.shell.Dir()
		}
		// Every write into the object store counts, git add included:
		// what it stores stays in git's objects even once unstaged.
		publishes = true
		op := gitscan.Op{Kind: p.Kind, Dir: dir, All: p.All, Force: p.Force, Paths: p.Paths,
			Messages: p.Messages, Remote: p.Remote, Refs: p.Refs, Untracked: p.Untracked, Ignored: p.Ignored}
		for _, f := range p.Pending {
			if f.Known {
				op.Pending = append(op.Pending, gitscan.Pending{Path: f.Path, Content: f.Content, From: f.From})
			}
		}
		ops = append(ops, op)
	}
	if !publishes {
		return ""
	}
	f, err := gitscan.Check(ctx, ops, knownSecrets(w.env.Workdir, w.env.Secrets))
	switch {
	case err != nil:
		return "could not check what git would publish for secrets (" + w.env.Secrets.Redact(err.Error()) + ")"
	case f != nil:
		return f.Reason()
	}
	return ""
}

// knownSecrets are the values a commit must not carry: the ones aci holds
// (its API key, credential variables) and what the workspace's .env files
// hold now (read again each time: the model may have written one).
func knownSecrets(workdir string, set *secrets.Redactor) []gitscan.Secret {
	var out []gitscan.Secret
	for _, v := range set.Values() {
		out = append(out, gitscan.Secret{Label: "a secret aci holds: its API key or a credential variable", Value: v})
	}
	for _, s := range dotenv.Secrets(workdir) {
		out = append(out, gitscan.Secret{Label: "the value of " + s.Label, Value: s.Value})
	}
	return out
}

// stagedWhy says, after a command that changed the git index, what it
// staged that no check saw before it ran (a script running git add): a
// file git ignores, or a secret value, naming the file and never the
// value; "" otherwise. before is the index's stamp before the command.
func (w *bashWindow) stagedWhy(ctx context.Context, before time.Time) string {
	w.mu.Lock()
	asked := w.asked
	w.mu.Unlock()
	if asked != "" {
		return "" // the person was asked before it ran, and allowed it
	}
	dir := w.shell.Dir()
	if now := gitscan.IndexStamp(dir); now.IsZero() || now.Equal(before) {
		return ""
	}
	f, err := gitscan.CheckStaged(ctx, dir, knownSecrets(w.env.Workdir, w.env.Secrets))
	if err != nil || f == nil {
		return ""
	}
	what := "a secret value (" + f.Secret + ")"
	if f.Secret == "" {
		what = "a file git ignores"
	}
	return "it left " + f.File + " staged, which is " + what + ", now in git's objects: unstage it (git restore --staged " + f.File + "); a commit of it will be asked"
}
