package main

// The help of each command: its own flags, environment and an example,
// complete for someone who has only the binary (no paths into the
// repository's docs/).

const mainHelp = `aci — a terminal coding agent

Usage:
  aci                        interactive session (on a terminal); before a dangerous
                             action it asks: y, n or a (always), then Enter
  echo "question" | aci      answer one question; the answer goes to stdout
  aci -p "question"          the same; piped stdin is appended as context
  echo "question" | aci -p   the same, the question read from stdin
  aci -p "/NAME args"        run a slash command: /init, /review [TARGET], a
                             command file (.aci/commands, .claude/commands,
                             ~/.config/aci/commands) or a skill
  aci serve                  sessions over HTTP, with a web page (aci serve --help)
  aci acp                    an agent for editors over the Agent Client
                             Protocol (aci acp --help)
  aci --bg "task"            run the task in the background; prints its id
  aci ps                     this folder's background sessions: id, state,
                             cost, last words
  aci attach ID              follow a background session live and answer its
                             questions; other lines are new messages
  aci logs [-f] ID           a background session's transcript (-f: follow it)
  aci worktree list|diff|merge|drop ID|NAME
                             what a --worktree session changed: show it, merge
                             it into the current branch, or drop it

Flags:
  -p QUESTION          ask one question and exit (without QUESTION: stdin);
                       a flag-like QUESTION needs -- first: aci -p -- --help
  -i FILE              attach a picture (PNG, JPEG, GIF, WebP) to the -p
                       question; repeatable; also --image FILE (in the
                       REPL: @shot.png in the question)
  --yes                approve dangerous commands without asking (also ACI_YES=1)
  --permission-mode M  ask (every change asked), default, plan (nothing
                       changes; accept the plan to carry it out) or yes
  --trust              run this folder's project hooks and MCP servers
                       without asking whether it is trusted
  --model NAME         model name (overrides OPENAI_MODEL); PROVIDER/MODEL: a settings provider
  --effort LEVEL       reasoning effort: low, medium, high (overrides ACI_REASONING_EFFORT)
  --max-steps N        model calls per turn (overrides ACI_MAX_STEPS)
  --max-turns N        questions a session takes (Claude Code's --max-turns
                       counts model calls: that is --max-steps here)
  --max-budget-usd X   money a session may spend, in US dollars; past it the
                       turn ends with outcome "limit" (exit 1)
                       (budgets also in settings.json: "limits": {"max_steps":
                       N, "max_turns": N, "max_budget_usd": X})
  --output-schema FILE the answer is one JSON value valid against the JSON
                       Schema in FILE (checked; sent back once, then exit 1)
  --resume [ID]        continue the most recent session of this directory
                       (or the session ID)
  --sessions           list this directory's sessions, newest first
  --output-format F    pipe mode's stdout: text (the answer), json (one result
                       object) or stream-json (one event a line)
  --sandbox MODE       workspace (commands contained), container (the container
                       aci runs in is the boundary) or off (also ACI_SANDBOX)
  --bg TASK            start TASK as a background session (aci ps, attach, logs)
  --worktree [NAME]    work in a new git worktree REPO.worktrees/NAME beside the
                       repository, on branch aci/NAME; at the end of the REPL
                       you merge, keep or drop it (else aci worktree ...)
  --serve [HOST:PORT]  the REPL, with aci serve's server on its session
                       (default 127.0.0.1:7433); prints the page's address
  --version            print the version
  --help               show this help

Configuration: flags win over the environment, which wins over .env in the
working directory, which wins over $XDG_CONFIG_HOME/aci/.env (by default
~/.config/aci/.env: your key, set once for every folder; aci offers to write
it when the key is missing). From these files aci reads only OPENAI_* and
ACI_* variables.
  OPENAI_API_KEY          the API key (never printed)
  OPENAI_BASE_URL         an OpenAI-compatible endpoint (default: OpenAI; with
                          neither it nor a key set, the first local server
                          found: Ollama 11434, llama.cpp 8080, LM Studio 1234,
                          vLLM 8000)
  OPENAI_MODEL            model name (default gpt-5-mini)
  OPENAI_FALLBACK_MODELS  comma-separated models to try when the main one fails
  ACI_MAX_STEPS           model calls per turn (default 50)
  ACI_REASONING_EFFORT    reasoning effort for models that take one: low, medium, high
  ACI_COMPRESS_TOKENS     compress the history above this many prompt tokens
                          (default 100000)
  ACI_OUTPUT_LIMIT        characters of one tool output kept (default 30000)
  ACI_STREAM              0 turns streaming off
  ACI_FIRST_BYTE_TIMEOUT  seconds to wait for a reply to begin (default 600
                          for a local server, 180 otherwise)
  ACI_CACHE_TTL           seconds the provider keeps a prompt cached (default
                          300; 0: it never expires)
  ACI_NOTIFY              auto, bell, osc9, off, or a command reading JSON on
                          stdin: a long turn's end or a waiting question
  ACI_YES, ACI_SANDBOX    safety switches: from the environment and flags only,
                          never from a file

Examples:
  aci
  git diff | aci -p "review this"
  aci -p "fix the failing test" --output-format json
  aci -p "triage issue 12" --output-schema triage.json --max-budget-usd 0.50
`

const serveHelp = `aci serve — this folder's sessions over HTTP, with a web page

Usage:
  aci serve [--addr HOST:PORT] [--model NAME] [--max-steps N] [--yes] [--sandbox MODE]
            [--max-turns N] [--max-budget-usd X]

It prints one address to open in a browser, carrying the access token:
  aci serve: http://127.0.0.1:7433/#token=…
Every request but the page carries the token (Authorization: Bearer TOKEN).
GET /api/openapi.json describes the API; the sessions are those
aci --sessions lists. Ctrl-C or SIGTERM stops it and keeps the transcripts.

Flags:
  --addr HOST:PORT   where to listen (default 127.0.0.1:7433; port 0: any free
                     one). A host other than loopback is reachable from other
                     machines: anyone with the token runs commands as you.
  --model NAME       model name (overrides OPENAI_MODEL)
  --effort LEVEL     reasoning effort: low, medium, high
  --max-steps N      model calls per turn (overrides ACI_MAX_STEPS)
  --max-turns N      questions a session takes
  --max-budget-usd X money a session may spend, in US dollars
  --yes              approve dangerous actions without asking a client
  --permission-mode M  the mode sessions start in: ask, default, plan or yes
  --trust            run the folder's project hooks and MCP servers
  --sandbox MODE     workspace (commands contained), container or off
  --version          print the version
  --help             show this help

Environment:
  ACI_SERVE_TOKEN             the token, 16 characters or more (from the
                              environment only; default: a new random one at
                              each start)
  ACI_SERVE_APPROVAL_TIMEOUT  seconds a question waits for a client's decision
                              before it is denied (default 600)
  OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL and the ACI_* settings as for
  aci (aci --help), from the environment, .env and ~/.config/aci/.env.

Example:
  ACI_SERVE_TOKEN=$(openssl rand -hex 16) aci serve --addr 127.0.0.1:8080
  curl -H "Authorization: Bearer $ACI_SERVE_TOKEN" -d '{}' http://127.0.0.1:8080/api/sessions
`

const acpHelp = `aci acp — an agent for editors, over the Agent Client Protocol

Usage:
  aci acp [--model NAME] [--max-steps N] [--max-turns N] [--max-budget-usd X] [--sandbox MODE]

An editor (Zed, JetBrains IDEs, Neovim with CodeCompanion or avante.nvim)
starts aci acp and speaks ACP version 1 on its stdin and stdout; aci writes
nothing else there. aci asks the editor before anything dangerous, and the
workspace is the folder the editor names. Problems are logged to
$XDG_STATE_HOME/aci/acp.log (by default ~/.local/state/aci/acp.log).

Flags:
  --model NAME     model name (overrides OPENAI_MODEL)
  --effort LEVEL   reasoning effort: low, medium, high
  --max-steps N    model calls per turn (overrides ACI_MAX_STEPS)
  --max-turns N    questions a session takes
  --max-budget-usd X  money a session may spend, in US dollars
  --sandbox MODE   workspace (commands contained), container or off
  --permission-mode M  the mode sessions start in: ask, default or plan
  --trust          run the folder's project hooks and MCP servers
  --version        print the version
  --help           show this help

Environment:
  OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL and the ACI_* settings as for
  aci (aci --help): from the environment the editor gives aci, then .env in
  the folder it starts in, then ~/.config/aci/.env ($XDG_CONFIG_HOME/aci/.env).
  Editors often start agents with an environment of their own: set the key
  once in ~/.config/aci/.env, or in the agent's "env" entry.

Example (Zed's settings.json):
  {"agent_servers": {"aci": {"type": "custom", "command": "aci", "args": ["acp"]}}}
`

const bgHelp = `Background sessions and worktrees

Usage:
  aci --bg "task" [--worktree [NAME]] [--model M] [--permission-mode M]
                       start the task in this folder's background server (started
                       when none runs, detached from the terminal; it stops by
                       itself after 10 minutes with nothing to do); prints the id
  aci ps               this folder's background sessions, newest first: id,
                       state (running, waiting for an answer, finished, stopped),
                       cost and last words
  aci attach ID        the session live in this terminal: its past, then each
                       event; a question is answered with y, n or a; any other
                       line is a message (to a finished session: a new turn in
                       the background); /exit or Ctrl-D leaves it running
  aci logs [-f] ID     its transcript as text; -f follows it (Ctrl-C ends)
  aci worktree list    the worktrees of --worktree sessions (branches aci/NAME)
  aci worktree diff ID|NAME    what it changed, as one diff
  aci worktree merge ID|NAME   merge it into the current branch, then remove it
  aci worktree drop ID|NAME    remove the worktree and its branch unmerged

A question in a background session waits (ACI_SERVE_APPROVAL_TIMEOUT seconds,
default 600, then denied) for an answer from aci attach or the web page, and
runs ACI_NOTIFY when it names a program. An unknown id is exit 2.

Environment:
  ACI_NOTIFY           a program told (JSON on stdin) when a background session
                       asks a question or ends a turn
  ACI_BG_IDLE_S        seconds an idle background server lives (default 600)
`
