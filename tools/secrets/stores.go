package secrets

import (
	"path/filepath"
	"strings"
)

// What is protected outside the workspace, defined once: the person's
// secret stores (hidden from contained commands, asked before a file
// window opens anything in them or a command reads them), the system's
// secrets, and the start-up files programs run or obey later (read-only
// to contained commands, never covered by a grant, asked before a
// command changes them). Paths in HomeStores and StartupFiles are
// relative to a home folder; each covers itself and everything below it.

// HomeStores are where the person's credentials live.
var HomeStores = []string{
	".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".docker", ".netrc", "_netrc",
	".azure", ".config/gh", ".config/hub", ".git-credentials", ".npmrc", ".pypirc",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".password-store",
	".local/share/keyrings", ".terraform.d/credentials.tfrc.json", ".vault-token",
	".pgpass", ".my.cnf", ".config/op", ".m2/settings-security.xml", ".config/rclone",
	".config/doctl", ".oci", ".config/helm/repositories.yaml", ".s3cfg", ".boto",
	".mozilla", ".config/google-chrome", ".config/chromium",
	// aci's own settings, keys and transcripts.
	".config/aci",
}

// SystemStores are secrets outside any home (they matter when aci runs
// as root). An entry may be a glob.
var SystemStores = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssl/private", "/etc/master.passwd", "/var/lib/sss", "/etc/security/opasswd",
	"/etc/ssh/ssh_host_*_key", "/root/.ssh",
}

// StartupFiles are what a shell, an editor, git, a desktop session or a
// package tool runs or obeys later, outside the sandbox.
var StartupFiles = []string{
	// shells
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile",
	".zshrc", ".zprofile", ".zshenv", ".zlogin", ".kshrc", ".cshrc", ".tcshrc", ".config/fish",
	".inputrc", ".pam_environment", ".config/environment.d",
	// git and ssh
	".gitconfig", ".config/git", ".ssh/authorized_keys", ".ssh/config", ".ssh/rc",
	// desktop sessions and services
	".xinitrc", ".xprofile", ".xsessionrc", ".xsession", ".config/autostart", ".config/systemd",
	".local/share/applications", "Library/LaunchAgents",
	// programs on PATH
	".local/bin",
	// editors and terminals
	".vimrc", ".vim", ".config/nvim", ".emacs", ".emacs.d", ".tmux.conf", ".config/tmux",
	// package and language tools
	".npmrc", ".pypirc", ".yarnrc", ".yarnrc.yml", ".config/pip", ".pip", ".condarc",
	".Rprofile", ".pythonrc", ".curlrc", ".wgetrc",
}

// underList returns the entry of list that rel (home-relative, clean) is
// or lies below; "" for none.
func underList(rel string, list []string) string {
	for _, s := range list {
		if rel == s || strings.HasPrefix(rel, s+"/") {
			return s
		}
	}
	return ""
}

// HomeStore returns the store that rel, a home-relative path, is or lies
// in; "" for none.
func HomeStore(rel string) string { return underList(filepath.Clean(rel), HomeStores) }

// HoldsHomeStore reports whether the home-relative folder rel holds a
// store below it (~/.config holds ~/.config/gcloud): copying it whole
// takes the store along.
func HoldsHomeStore(rel string) bool {
	rel = filepath.Clean(rel)
	for _, s := range HomeStores {
		if strings.HasPrefix(s, rel+"/") {
			return true
		}
	}
	return false
}

// StartupFile returns the entry of StartupFiles that rel, home-relative,
// is or lies in; "" for none.
func StartupFile(rel string) string { return underList(filepath.Clean(rel), StartupFiles) }

// IsSystemSecret reports whether the absolute path p is or lies in one
// of SystemStores.
func IsSystemSecret(p string) bool {
	p = filepath.Clean(p)
	for _, s := range SystemStores {
		if p == s || strings.HasPrefix(p, s+"/") {
			return true
		}
		if strings.ContainsRune(s, '*') {
			if ok, _ := filepath.Match(s, p); ok {
				return true
			}
		}
	}
	return false
}

// SystemStorePaths are SystemStores with their globs expanded: the paths
// to cover, existing or not.
func SystemStorePaths() []string {
	var out []string
	for _, s := range SystemStores {
		if !strings.ContainsRune(s, '*') {
			out = append(out, s)
			continue
		}
		m, _ := filepath.Glob(s)
		out = append(out, m...)
	}
	return out
}
