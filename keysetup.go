package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/chzyer/readline"
	"github.com/joho/godotenv"
	"github.com/mattn/go-isatty"

	"github.com/aci-dev/aci/tools/textfile"
)

// canAsk reports a person at a terminal who can answer a question: stdin
// and stderr both terminals.
func canAsk(stdin *os.File, stderr io.Writer) bool {
	f, ok := stderr.(*os.File)
	return ok && isatty.IsTerminal(stdin.Fd()) && isatty.IsTerminal(f.Fd())
}

// askKey offers to keep the missing key in the person's own file, read
// without echo, and writes it there (mode 0600, atomically). It returns
// a usage error when the person declines or the answer is no key.
func askKey(stdin *os.File, stderr io.Writer, nk *noKeyError) error {
	if nk.user == "" {
		return nk
	}
	fmt.Fprint(stderr, "aci: ", nk.looked())
	if len(nk.tried) > 0 {
		var names []string
		for _, s := range nk.tried {
			names = append(names, s.Name)
		}
		fmt.Fprintf(stderr, "No local model server answered either (%s).\n", strings.Join(names, ", "))
	}
	fmt.Fprintf(stderr, "Paste your API key for %s to keep it in %s,\nreadable only by you, for every folder (Enter alone quits): ", nk.host, tilde(nk.user))
	key, err := readSecret(stdin, stderr)
	fmt.Fprint(stderr, "\r\n")
	if err != nil {
		return errUsage{"no key given; nothing was saved"}
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return errUsage{"no key given; nothing was saved"}
	}
	if strings.ContainsAny(key, " \t'\"\\") || strings.ContainsFunc(key, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		return errUsage{"that does not look like an API key (it holds spaces, quotes or other characters keys do not have); nothing was saved"}
	}
	if err := saveKey(nk.user, key); err != nil {
		return errUsage{fmt.Sprintf("could not save the key: %v", err)}
	}
	fmt.Fprintf(stderr, "aci: saved in %s (mode 600); aci finds it from any folder now.\n", tilde(nk.user))
	return nil
}

// readSecret reads one line from the terminal without showing it: raw
// mode, so Ctrl-C and Ctrl-D cancel (as the byte they are) and nothing is
// echoed; a signal from outside restores the terminal before aci ends.
func readSecret(stdin *os.File, stderr io.Writer) (string, error) {
	fd := int(stdin.Fd())
	state, err := readline.MakeRaw(fd)
	if err != nil {
		return "", fmt.Errorf("terminal: %w", err)
	}
	restore := func() { _ = readline.Restore(fd, state) }
	defer restore()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
	done := make(chan struct{})
	defer func() { signal.Stop(sigs); close(done) }()
	go func() {
		select {
		case s := <-sigs:
			restore()
			fmt.Fprint(stderr, "\r\n")
			code := 130
			if n, ok := s.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return scanSecret(stdin)
}

// errCancelled is Ctrl-C or Ctrl-D at the key prompt.
var errCancelled = errors.New("cancelled")

// scanSecret reads bytes of a raw terminal up to Enter: Backspace deletes,
// Ctrl-U clears, Ctrl-C and Ctrl-D (on an empty line) cancel, escape
// sequences (arrows, bracketed-paste marks) are skipped.
func scanSecret(r io.Reader) (string, error) {
	var line []byte
	buf := make([]byte, 256)
	esc := 0 // 1: after ESC, 2: inside ESC [ … up to its final byte
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			switch {
			case esc == 1:
				esc = 0
				if b == '[' || b == 'O' {
					esc = 2
				}
			case esc == 2:
				if b >= 0x40 && b <= 0x7e {
					esc = 0
				}
			case b == 0x1b:
				esc = 1
			case b == '\r' || b == '\n':
				return string(line), nil
			case b == 0x03:
				return "", errCancelled
			case b == 0x04:
				if len(line) == 0 {
					return "", errCancelled
				}
			case b == 0x7f || b == 0x08:
				if len(line) > 0 {
					line = line[:len(line)-1]
				}
			case b == 0x15:
				line = line[:0]
			case b >= 0x20:
				line = append(line, b)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return string(line), nil
			}
			return "", err
		}
	}
}

// saveKey sets OPENAI_API_KEY in the env file at path, keeping its other
// lines: the folder made private, the file narrowed to 0600 before the key
// is in it, written whole through a rename, then read back.
func saveKey(path, key string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := os.Chmod(path, 0o600); err != nil {
			return err
		}
	}
	if err := textfile.WriteAtomic(path, []byte(withKey(string(old), key)), 0o600); err != nil {
		return err
	}
	got, err := godotenv.Read(path)
	if err != nil {
		return fmt.Errorf("read %s back: %w", path, err)
	}
	if got["OPENAI_API_KEY"] != key {
		return fmt.Errorf("%s does not read back as written: look at its OPENAI_API_KEY line", path)
	}
	return nil
}

// withKey is the env file text with its OPENAI_API_KEY line replaced, or
// added when it has none.
func withKey(text, key string) string {
	line := "OPENAI_API_KEY=" + key
	lines := strings.SplitAfter(text, "\n")
	replaced := false
	for i, l := range lines {
		t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "export "))
		if strings.HasPrefix(t, "OPENAI_API_KEY=") || strings.HasPrefix(t, "OPENAI_API_KEY ") {
			lines[i] = line + "\n"
			replaced = true
		}
	}
	out := strings.Join(lines, "")
	if !replaced {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out == "" {
			out = "# aci's settings for every folder (OPENAI_* and ACI_* only); a folder's .env wins.\n"
		}
		out += line + "\n"
	}
	return out
}
