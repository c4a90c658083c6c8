// Package guard judges shell commands and file accesses before aci runs
// them, and says what is dangerous and why. It never runs anything and
// reads no process-wide state: New takes an explicit Env (home, temp
// dirs, secret values), and EnvFromOS is the one place that reads the
// process's.
//
// How it is laid out:
//   - api.go: Env, New, Check, CheckPath, EnvFromOS.
//   - guard.go: the walk over the parsed command (statements, pipelines,
//     substitutions, nested scripts), kept apart from what is judged.
//   - spec.go, specs.go: one spec per command: its judge, the command a
//     wrapper runs (peel), what it does with stdin, the state it leaves
//     for later statements (track), and how it may name secrets. A new
//     rule is one entry in specs.go plus its judge in the file of its noun.
//   - exec.go: one simple command: peel wrappers, then the spec's judge,
//     its track, egress and secret checks.
//   - rules.go: builders of common judges (by subcommand, by flag).
//   - cmdopts.go: options whose value is a program to run (rsync -e, tar
//     --to-command, ssh -o ProxyCommand=): a table of option kinds per
//     tool family plus a generic rule by option name; the value is judged
//     as the command it holds. A tool that runs an option's value is one
//     row there.
//   - git.go: one row per git subcommand (its judge and the options whose
//     value git runs); gitconfig.go: configuration keys git runs or that
//     shorten how long unreachable history is kept.
//   - judges by noun: files.go, writers.go, sed.go, find.go, transfer.go,
//     egress.go, git.go, gitconfig.go, remote.go, infra.go, system.go,
//     perms.go, packages.go, scripts.go, unpinned.go, langs.go
//     (shells and interpreters), code.go and capability.go (interpreter
//     code judged by the capabilities it reaches), written.go (scripts,
//     copies and links made earlier in the same command).
//   - paths.go, secrets.go: where a path lands and whether it is a secret.
package guard
