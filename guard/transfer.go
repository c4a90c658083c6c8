package guard

import (
	"path"
	"strings"
	"sync"
)

// Rules for archives and for moving data across the network.

func ruleTar(c *cmdChecker, in *guardCall) string {
	extract, create := false, false
	var dir, file string
	var need []string // option letters still waiting for their value
	for i, a := range in.args {
		v := a.val
		if len(need) > 0 {
			switch need[0] {
			case "C":
				dir = v
			case "f":
				file = v
			}
			need = need[1:]
			continue
		}
		switch {
		case !a.ok:
			continue
		case strings.HasPrefix(v, "--"):
			name, val, _ := strings.Cut(v, "=")
			switch name {
			case "--extract", "--get":
				extract = true
			case "--create", "--append", "--update":
				create = true
			case "--absolute-names":
				if extract || hasLitArg(in.args, "-x", "--extract") {
					return "extracts to absolute paths"
				}
			case "--directory":
				dir = val
			case "--file":
				file = val
			}
		case strings.HasPrefix(v, "-") || i == 0 && strings.Trim(v, "ctxrudAzjJvfpkPC0123456789bBGhilmMnoOsSTUwWXZ") == "":
			for _, r := range strings.TrimPrefix(v, "-") {
				switch r {
				case 'x':
					extract = true
				case 'c', 'r', 'u', 'A':
					create = true
				case 'P':
					if strings.Contains(v, "x") || hasLitArg(in.args, "--extract") {
						return "extracts to absolute paths"
					}
				case 'f', 'C', 'b', 'L', 'T', 'X', 'g', 'K', 'N', 'V', 'H', 'F', 'I':
					need = append(need, string(r))
				}
			}
		}
	}
	if extract {
		d := dir
		if d == "" {
			d = "."
		}
		if why := c.writeWhy(litArg(d)); why != "" {
			return "extracts: " + why
		}
	}
	if create && file != "" && file != "-" {
		return c.writeWhy(litArg(file))
	}
	return ""
}

func ruleUnzip(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "dxP", nil)
	if d, ok := p.get("-d"); ok {
		if why := c.writeWhy(litArg(d)); why != "" {
			return "extracts: " + why
		}
	}
	return ""
}

// remoteHostOperand reports host:path, user@host:path and rsync:// operands.
func remoteHostOperand(a shArg) bool {
	if !a.ok {
		return false
	}
	v := a.val
	if strings.Contains(v, "://") {
		return true
	}
	i := strings.IndexByte(v, ':')
	return i > 0 && !strings.ContainsRune(v[:i], '/')
}

func ruleRsync(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "efTB", nameSet("--rsh", "--exclude", "--include", "--filter",
		"--files-from", "--port", "--password-file", "--chmod", "--chown", "--log-file",
		"--temp-dir", "--backup-dir", "--suffix", "--link-dest", "--compare-dest", "--copy-dest",
		"--max-size", "--min-size", "--timeout", "--bwlimit", "--exclude-from", "--include-from"))
	if len(p.ops) < 2 {
		return ""
	}
	dst := p.ops[len(p.ops)-1]
	if remoteHostOperand(dst) {
		return uploadWhy(p.ops[:len(p.ops)-1])
	}
	for name := range p.flags {
		if strings.HasPrefix(name, "--delete") || name == "--remove-source-files" {
			if why := c.deleteWhy(dst, true); why != "" {
				return why
			}
		}
	}
	return c.writeWhy(dst)
}

func ruleScp(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "cFiJlPoSDX", nil)
	if len(p.ops) < 2 {
		return ""
	}
	dst := p.ops[len(p.ops)-1]
	if remoteHostOperand(dst) {
		return uploadWhy(p.ops[:len(p.ops)-1])
	}
	return c.writeWhy(dst)
}

// curlVal are curl's short options that take a value.
const curlVal = "AbcCdDeEFHKmoPQrtTuUwxXYyz"

func ruleCurl(c *cmdChecker, in *guardCall) string {
	var urls []string
	var uploads []shArg
	for i := 0; i < len(in.args); i++ {
		a := in.args[i]
		name, val := a.val, ""
		hasVal := false
		switch {
		case !a.ok:
			if a.secret {
				return "sends a secret over the network"
			}
			continue
		case strings.HasPrefix(name, "--"):
			if n, v, eq := strings.Cut(name, "="); eq {
				name, val, hasVal = n, v, true
			}
		case strings.HasPrefix(name, "-") && len(name) > 2 && strings.IndexByte(curlVal, name[1]) >= 0:
			name, val, hasVal = name[:2], name[2:], true
		case strings.HasPrefix(name, "-") && len(name) > 1:
			if !strings.ContainsAny(name[len(name)-1:], curlVal) {
				continue
			}
			name = "-" + name[len(name)-1:]
		case !strings.HasPrefix(name, "-"):
			urls = append(urls, name)
			continue
		}
		takes := len(name) == 2 && strings.IndexByte(curlVal, name[1]) >= 0 || curlLongVal()[name]
		if !takes {
			continue
		}
		v := shArg{val: val, ok: true}
		if !hasVal {
			if i+1 >= len(in.args) {
				break
			}
			i++
			v = in.args[i]
		}
		if why := c.curlOpt(name, v); why != "" {
			if why == whyUpload {
				uploads = append(uploads, v)
				continue
			}
			return why
		}
	}
	if len(uploads) > 0 {
		if !allLoopback(urls) {
			return whyUpload
		}
		for _, u := range uploads { // a local server may see project files, not secrets
			if why := c.secretNameArg(u); why != "" {
				return why
			}
		}
	}
	return ""
}

// trackCurl records the files curl downloads (-o file, -O): running them
// later in the command runs downloaded code.
func trackCurl(c *cmdChecker, in *guardCall) {
	remoteName := false
	var urls []string
	for i := 0; i < len(in.args); i++ {
		v := in.args[i].val
		switch {
		case v == "-o" || v == "--output":
			if i+1 < len(in.args) {
				i++
				if p := c.abs(in.args[i].val); p != "" && in.args[i].val != "-" {
					c.downloads[p] = true
				}
			}
		case strings.HasPrefix(v, "--output="):
			if p := c.abs(strings.TrimPrefix(v, "--output=")); p != "" {
				c.downloads[p] = true
			}
		case v == "--remote-name" || v == "--remote-name-all":
			remoteName = true
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				if v[j] == 'O' {
					remoteName = true
				}
				if strings.IndexByte(curlVal, v[j]) < 0 {
					continue
				}
				val := v[j+1:]
				if val == "" && i+1 < len(in.args) {
					i++
					val = in.args[i].val
				}
				if p := c.abs(val); v[j] == 'o' && p != "" && val != "-" {
					c.downloads[p] = true
				}
				break
			}
		case strings.Contains(v, "://"):
			urls = append(urls, v)
		}
	}
	if remoteName {
		for _, u := range urls {
			if b := path.Base(strings.SplitN(u, "?", 2)[0]); b != "" && b != "/" && b != "." {
				c.downloads[c.abs(b)] = true
			}
		}
	}
}

const whyUpload = "uploads a local file"

var curlLongVal = sync.OnceValue(func() map[string]bool {
	return nameSet("--data", "--data-binary", "--data-ascii", "--data-raw", "--data-urlencode",
		"--json", "--form", "--form-string", "--upload-file", "--output", "--header", "--user-agent",
		"--user", "--request", "--cookie", "--cookie-jar", "--config", "--max-time", "--connect-timeout",
		"--proxy", "--referer", "--write-out", "--cacert", "--cert", "--key", "--url", "--resolve",
		"--retry", "--oauth2-bearer", "--output-dir", "--range", "--limit-rate", "--variable", "--expand-data")
})

// curlOpt judges one curl option and its value.
func (c *cmdChecker) curlOpt(name string, v shArg) string {
	switch name {
	case "-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "--json", "--data-raw":
		if v.secret {
			return "sends a secret over the network"
		}
		if name != "--data-raw" && v.ok && (strings.HasPrefix(v.val, "@") ||
			name == "--data-urlencode" && strings.Contains(v.val, "@")) {
			return whyUpload
		}
	case "-F", "--form":
		if v.secret {
			return "sends a secret over the network"
		}
		if !v.ok || strings.Contains(v.val, "=@") || strings.Contains(v.val, "=<") {
			return whyUpload
		}
	case "-T", "--upload-file":
		return whyUpload
	case "-o", "--output":
		if !v.ok {
			return "writes to a path it cannot resolve"
		}
		if v.val == "-" {
			return ""
		}
		return c.writeWhy(v)
	case "-K", "--config":
		if v.ok && v.val != "-" {
			return c.secretArg(v, false)
		}
	}
	return ""
}

func ruleWget(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "OoaPeiBtTwUQlADRIX", wgetValOpts())
	for _, f := range []string{"--post-file", "--body-file"} {
		if _, ok := p.get(f); ok {
			return "uploads a local file"
		}
	}
	if _, ok := p.get("--post-data", "--body-data"); ok {
		for _, a := range in.args {
			if a.secret {
				return "sends a secret over the network"
			}
		}
	}
	if out, ok := p.get("-O", "--output-document"); ok {
		if out == "-" {
			return ""
		}
		return c.writeWhy(litArg(out))
	}
	if d, ok := p.get("-P", "--directory-prefix"); ok {
		return c.writeWhy(litArg(d))
	}
	return ""
}

var wgetValOpts = sync.OnceValue(func() map[string]bool {
	return nameSet("--output-document", "--post-file", "--body-file", "--directory-prefix",
		"--output-file", "--post-data", "--header", "--user", "--password", "--input-file", "--method",
		"--body-data", "--tries", "--timeout")
})

// trackWget records the files wget downloads.
func trackWget(c *cmdChecker, in *guardCall) {
	p := parseCmdArgs(in.args, "OoaPeiBtTwUQlADRIX", wgetValOpts())
	if out, ok := p.get("-O", "--output-document"); ok {
		if pa := c.abs(out); pa != "" && out != "-" {
			c.downloads[pa] = true
		}
		return
	}
	dir := "."
	if d, ok := p.get("-P", "--directory-prefix"); ok {
		dir = d
	}
	for _, u := range p.ops {
		if b := path.Base(strings.SplitN(u.val, "?", 2)[0]); u.ok && b != "" && b != "/" {
			if pa := c.abs(path.Join(dir, b)); pa != "" {
				c.downloads[pa] = true
			}
		}
	}
}

// ruleNetcat flags netcat-style tools that hand a shell to the network.
func ruleNetcat(c *cmdChecker, in *guardCall) string {
	for _, a := range in.args {
		v := a.val
		if v == "-e" || v == "-c" || v == "--exec" || v == "--sh-exec" || v == "--lua-exec" ||
			strings.HasPrefix(v, "--exec=") || strings.HasPrefix(v, "--sh-exec=") {
			return "opens a remote shell"
		}
		u := strings.ToUpper(v)
		if in.name == "socat" && (strings.Contains(u, "EXEC:") || strings.Contains(u, "SYSTEM:")) {
			return "opens a remote shell"
		}
	}
	if in.name == "socat" {
		file, net := false, false
		for _, a := range in.args {
			u := strings.ToUpper(a.val)
			file = file || strings.HasPrefix(u, "FILE:") || strings.HasPrefix(u, "OPEN:") || strings.HasPrefix(u, "GOPEN:") || strings.HasPrefix(u, "/")
			net = net || strings.Contains(u, "TCP") || strings.Contains(u, "UDP") || strings.Contains(u, "SSL")
		}
		if file && net {
			return "sends a local file to the network"
		}
	}
	return ""
}

func ruleGpg(c *cmdChecker, in *guardCall) string {
	for _, a := range in.args {
		if strings.HasPrefix(a.val, "--export-secret") {
			return "exports private keys"
		}
	}
	return ""
}

// uploadWhy judges copying sources to a remote host: local data leaving
// the machine is dangerous, remote-to-remote is not.
func uploadWhy(sources []shArg) string {
	for _, s := range sources {
		if !remoteHostOperand(s) {
			return "sends local files to a remote host"
		}
	}
	return ""
}
