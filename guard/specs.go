package guard

import (
	"strings"
	"sync"

	"github.com/aci-dev/aci/tools/secrets"
)

// The command table: one entry per command. An entry's names all share
// its spec; "aliases" spell the first name differently (podman is docker
// to the rules). Families of commands with the same behaviour share an
// entry. Indexed on first use (loadSpecs).

// loadSpecs indexes the table on first use, not at start: most runs of aci
// check few commands or none.
func loadSpecs() { specsOnce.Do(func() { buildSpecs(specSource()) }) }

var (
	specsOnce  sync.Once
	specSource func() []specEntry
)

// Judges refer back to the walker, which looks commands up here: naming
// specTable in loadSpecs would be an initialisation cycle, so init hands
// it over (no work is done at start).
func init() { specSource = specTable }

func specTable() []specEntry {
	pkgs := func(subs ...string) cmdSpec { return cmdSpec{judge: rulePkg(subs...)} }
	pub := func(subs ...string) cmdSpec { return cmdSpec{judge: pubRule(subs...)} }
	always := func(why string) cmdSpec { return cmdSpec{judge: alwaysDangerous(why)} }
	interp := cmdSpec{judge: ruleInterp, stdin: stdinInterp, lang: true, printer: true}
	return []specEntry{
		// Shells and code runners.
		{names: "sh bash zsh dash ksh mksh ash fish yash posh rbash tcsh csh",
			spec: cmdSpec{judge: ruleShell, stdin: stdinShell, shell: true, printer: true}},
		{names: "python php lua Rscript osascript deno pwsh powershell tclsh jshell irb", spec: interp},
		{names: "perl ruby", spec: cmdSpec{judge: ruleInterp, stdin: stdinInterp, lang: true, printer: true, inPlace: perlInPlace}},
		{names: "node", aliases: "nodejs", spec: interp},
		{names: "bun", spec: cmdSpec{judge: ruleBun, stdin: stdinInterp, lang: true, peel: peelPkgExec}},
		{names: "eval", spec: cmdSpec{judge: ruleEval}},
		{names: "source .", spec: cmdSpec{judge: ruleSource, stdin: stdinSource, projSecretOK: true}},
		{names: "trap", spec: cmdSpec{judge: ruleTrap}},
		{names: "alias", spec: cmdSpec{judge: ruleAlias}},
		{names: "awk", aliases: "gawk mawk nawk busybox-awk", spec: cmdSpec{judge: ruleAwk, printer: true}},
		{names: "sed", aliases: "gsed", spec: cmdSpec{judge: ruleSed, printer: true, inPlace: sedInPlace}},
		{names: "find", spec: cmdSpec{judge: ruleFindAll, secretOK: true, projSecretOK: true}},
		{names: "make gmake", spec: cmdSpec{judge: ruleMake}},
		{names: "gdb", spec: cmdSpec{judge: ruleDebugger, peel: peelGdbArgs}},
		{names: "lldb expect", spec: cmdSpec{judge: ruleDebugger}},
		{names: "vim", aliases: "vi nvim view ex", spec: cmdSpec{judge: ruleVim, projSecretOK: true}},

		// Wrappers that run their arguments.
		{names: "nohup unbuffer chronic builtin catchsegv firejail rlwrap winpty", spec: cmdSpec{peel: skipOpts("", nil, 0)}},
		{names: "proxychains proxychains4", spec: cmdSpec{peel: skipOpts("f", nil, 0)}},
		{names: "torsocks tsocks", spec: cmdSpec{peel: skipOpts("uapP", nil, 0)}},
		{names: "faketime", spec: cmdSpec{peel: skipOpts("f", nil, 1)}},
		{names: "sg", spec: cmdSpec{peel: peelSg}},
		{names: "run-parts", spec: always("runs every script in a directory")},
		{names: "bwrap", spec: cmdSpec{peel: peelBwrap}},
		{names: "dotenv env-cmd aws-vault infisical doppler sshpass cpulimit entr flatpak-spawn distrobox-enter ssh-agent retry",
			spec: cmdSpec{peel: peelDashDash("fepdlvP", nameSet("--env-file", "--file", "--config", "--project", "--env", "--path"), 0), projSecretOK: true}},
		{names: "op", spec: cmdSpec{peel: peelSub("run", peelDashDash("", nameSet("--env-file"), 0)), creds: credWords(words("read"), words("item", "get"))}},
		{names: "conda mamba micromamba", spec: cmdSpec{peel: peelSub("run", peelDashDash("np", nameSet("--name", "--prefix", "--cwd"), 0))}},
		{names: "mise rtx asdf rbenv pyenv nodenv goenv jenv", spec: cmdSpec{peel: peelSub("exec x", peelDashDash("", nil, 0))}},
		{names: "nvm", spec: cmdSpec{peel: peelSub("exec run", peelDashDash("", nil, 1))}},
		{names: "direnv", spec: cmdSpec{peel: peelSub("exec", peelDashDash("", nil, 1)), projSecretOK: true}},
		{names: "perf", spec: cmdSpec{peel: peelSub("record stat trace", peelDashDash("eoFcpCt", nameSet("--event", "--output", "--freq", "--count", "--pid", "--cpu", "--tid"), 0))}},
		{names: "systemd-inhibit toolbox distrobox", spec: cmdSpec{peel: peelDashDash("", nameSet("--what", "--who", "--why", "--mode", "--container", "--name"), 0)}},
		{names: "cross-env cross-env-shell", spec: cmdSpec{peel: peelAssignments}},
		{names: "hyperfine", spec: cmdSpec{judge: ruleScriptArgs("", "--prepare", "-p", "--setup", "-s", "--cleanup", "-c", "--conclude")}},
		{names: "concurrently", spec: cmdSpec{judge: ruleScriptArgs("")}},
		{names: "nodemon", spec: cmdSpec{judge: ruleScriptArgs("--exec", "-x")}},
		{names: "watchexec", spec: cmdSpec{peel: peelDashDash("weifdp", nameSet("--watch", "--exts", "--filter", "--ignore", "--debounce", "--shell", "--signal"), 0)}},
		{names: "valgrind dbus-launch dbus-run-session unshare xvfb-run sem daemonize nsjail proot fakeroot eatmydata",
			spec: cmdSpec{peel: skipOpts("", nameSet("--bind", "--ro-bind", "--chdir", "--setenv", "--server-args"), 0)}},
		{names: "env", spec: cmdSpec{peel: peelEnv}},
		{names: "command", spec: cmdSpec{peel: peelCommand}},
		{names: "exec", spec: cmdSpec{peel: skipOpts("a", nil, 0)}},
		{names: "time", spec: cmdSpec{peel: skipOpts("fo", nameSet("--format", "--output"), 0)}},
		{names: "nice", spec: cmdSpec{peel: skipOpts("n", nameSet("--adjustment"), 0)}},
		{names: "setsid caffeinate", spec: cmdSpec{peel: skipOpts("tw", nil, 0)}},
		{names: "ionice", spec: cmdSpec{peel: skipOpts("cnP", nameSet("--class", "--classdata"), 0)}},
		{names: "stdbuf", spec: cmdSpec{peel: skipOpts("ioe", nameSet("--input", "--output", "--error"), 0)}},
		{names: "timeout", aliases: "gtimeout", spec: cmdSpec{peel: skipOpts("sk", nameSet("--signal", "--kill-after"), 1)}},
		{names: "taskset", spec: cmdSpec{peel: skipOpts("", nil, 1)}},
		{names: "chrt", spec: cmdSpec{peel: skipOpts("T", nil, 1)}},
		{names: "systemd-run", spec: cmdSpec{peel: skipOpts("pEuMH", nameSet("--unit", "--property", "--setenv", "--uid",
			"--gid", "--working-directory", "--description", "--slice", "--on-calendar", "--on-active", "--machine", "--host"), 0)}},
		{names: "flock", spec: cmdSpec{peel: peelFlock}},
		{names: "strace ltrace", spec: cmdSpec{peel: peelStrace}},
		{names: "script", spec: cmdSpec{peel: peelScript}},
		{names: "tmux", spec: cmdSpec{peel: peelTmux}},
		{names: "screen", spec: cmdSpec{peel: peelScreen}},
		{names: "parallel", spec: cmdSpec{peel: peelParallel}},
		{names: "busybox toybox", spec: cmdSpec{peel: peelBusybox}},
		{names: "xargs", spec: cmdSpec{peel: peelXargs, printer: true}},
		{names: "watch", spec: cmdSpec{peel: peelWatch}},
		{names: "uv", spec: cmdSpec{peel: peelUv}},
		{names: "poetry hatch", spec: cmdSpec{peel: peelRun, judge: pubRule("publish")}},
		{names: "pipenv pdm rye bundle", spec: cmdSpec{peel: peelRun}},
		{names: "npx pnpx bunx", spec: cmdSpec{peel: peelNpx}},
		{names: "sudo doas su pkexec run0 sudoedit runuser calife please chroot nsenter setpriv capsh",
			spec: cmdSpec{priv: true}},

		// Files.
		{names: "rm", spec: cmdSpec{judge: ruleRm, secretOK: true, projSecretOK: true}},
		{names: "rimraf del-cli", spec: cmdSpec{judge: ruleRimraf}},
		{names: "trash", spec: cmdSpec{judge: ruleRimraf, projSecretOK: true}},
		{names: "unlink", spec: cmdSpec{judge: ruleUnlink, secretOK: true, projSecretOK: true}},
		{names: "shred srm wipe", spec: cmdSpec{judge: ruleShred, projSecretOK: true}},
		{names: "mv", spec: cmdSpec{judge: ruleMv, track: trackCopy, secretOK: true, projSecretOK: true}},
		{names: "cp", spec: cmdSpec{judge: ruleCp, track: trackCopy, projSecretOK: true, dirs: alwaysDirs}},
		{names: "install", spec: cmdSpec{judge: ruleInstall, track: trackCopy, projSecretOK: true}},
		{names: "mkdir", spec: cmdSpec{track: trackMkdir, secretOK: true, projSecretOK: true}},
		{names: "ln", spec: cmdSpec{judge: ruleLn, track: trackLn, projSecretOK: true}},
		{names: "dd", spec: cmdSpec{judge: ruleDd}},
		{names: "tee", spec: cmdSpec{judge: ruleWriteOps("", nil), printer: true, projSecretOK: true}},
		{names: "truncate", spec: cmdSpec{judge: ruleWriteOps("sr", nameSet("--size", "--reference")), projSecretOK: true}},
		{names: "chmod", spec: cmdSpec{judge: ruleChmod, secretOK: true, projSecretOK: true}},
		{names: "chown chgrp", spec: cmdSpec{judge: ruleChown, secretOK: true, projSecretOK: true}},
		{names: "chattr setfacl", spec: cmdSpec{judge: ruleChattr}},
		{names: "tar", aliases: "gtar bsdtar", spec: cmdSpec{judge: ruleTar, dirs: alwaysDirs}},
		{names: "zip 7z rclone restic borg", spec: cmdSpec{dirs: alwaysDirs}},
		{names: "unzip", spec: cmdSpec{judge: ruleUnzip}},
		{names: "ls stat file test [ [[ dirname basename realpath readlink du df which type touch wc sha256sum sha1sum md5sum shasum b2sum cksum fd",
			spec: cmdSpec{secretOK: true, projSecretOK: true}},
		{names: "cd pushd", spec: cmdSpec{track: trackCd, secretOK: true, projSecretOK: true}},
		{names: "popd", spec: cmdSpec{track: trackPopd}},
		{names: "read mapfile readarray unset getopts", spec: cmdSpec{track: forget}},
		{names: "code nano emacs godotenv set export sops git-crypt age", spec: cmdSpec{projSecretOK: true}},
		{names: "cat less more head tail base64 base32 xxd od hexdump rev tr cut sort uniq fold nl column jq yq strings tac paste cmd fmt expand iconv envsubst",
			spec: cmdSpec{printer: true}},
		{names: "grep egrep fgrep", spec: cmdSpec{printer: true, dirs: recursiveGrep}},
		{names: "rg", spec: cmdSpec{printer: true, dirs: alwaysDirs}},
		{names: "ag ack", spec: cmdSpec{dirs: alwaysDirs}},
		{names: "echo printf", spec: cmdSpec{judge: rulePrint, track: forgetPrintVar, printer: true, secretOK: true, projSecretOK: true}},
		{names: "print", spec: cmdSpec{judge: rulePrint}},
		{names: "printenv", spec: cmdSpec{judge: rulePrintenv}},

		// The network.
		{names: "curl", spec: cmdSpec{judge: ruleCurl, track: trackCurl, net: true}},
		{names: "wget", spec: cmdSpec{judge: ruleWget, track: trackWget, net: true}},
		{names: "nc ncat netcat cryptcat", spec: cmdSpec{judge: ruleNetcat, stdin: stdinNetwork, net: true}},
		{names: "socat", spec: cmdSpec{judge: ruleNetcat, stdin: stdinNetwork, net: true}},
		{names: "telnet", spec: cmdSpec{stdin: stdinNetwork, net: true}},
		{names: "openssl", spec: cmdSpec{stdin: stdinOpenssl, net: true, projSecretOK: true}},
		{names: "ssh", spec: cmdSpec{judge: ruleSSH, stdin: stdinNetwork, net: true, secretOK: true, projSecretOK: true}},
		{names: "sftp", spec: cmdSpec{stdin: stdinNetwork, net: true, secretOK: true, projSecretOK: true}},
		{names: "ftp lftp", spec: cmdSpec{stdin: stdinNetwork, net: true}},
		{names: "scp", spec: cmdSpec{judge: ruleScp, net: true, projSecretOK: true, dirs: alwaysDirs}},
		{names: "rsync", spec: cmdSpec{judge: ruleRsync, track: trackCopy, net: true, projSecretOK: true, dirs: alwaysDirs}},
		{names: "ssh-add", spec: cmdSpec{secretOK: true, projSecretOK: true}},
		{names: "ssh-keygen", spec: cmdSpec{judge: ruleSSHKeygen, secretOK: true, projSecretOK: true}},
		{names: "nmap masscan zmap hydra medusa john hashcat sqlmap nikto msfconsole msfvenom aircrack-ng ettercap bettercap responder crackmapexec netexec gobuster ffuf wfuzz",
			spec: always("scans, cracks or attacks other systems")},
		{names: "tcpdump tshark dumpcap", spec: always("captures network traffic")},
		{names: "ngrok cloudflared localtunnel lt bore frpc", spec: cmdSpec{judge: ruleTunnel}},
		{names: "xmrig minerd cpuminer t-rex nbminer", spec: always("mines cryptocurrency")},
		{names: "locate mlocate plocate", spec: cmdSpec{judge: ruleLocate}},
		{names: "ssh-copy-id ssh-keyscan mosh", spec: cmdSpec{secretOK: true, projSecretOK: true, net: true}},
		{names: "http https xh httpie aria2c lwp-request GET POST HEAD dig nslookup host drill delv ping ping6 traceroute tftp websocat wscat grpcurl mosquitto_pub sendmail mail mailx mutt swaks smbclient whois finger kdig resolvectl getent",
			spec: cmdSpec{net: true}},
		{names: "gpg gpg2", spec: cmdSpec{judge: ruleGpg, secretOK: true, projSecretOK: true}},

		// Version control, packages, publishing.
		{names: "git", spec: cmdSpec{judge: ruleGit, track: trackGit, creds: credWords(words("credential", "fill")), secretOK: true, projSecretOK: true}},
		{names: "gh", spec: cmdSpec{judge: ruleGh, creds: ghCreds}},
		{names: "npm pnpm", spec: cmdSpec{judge: ruleNpm, peel: peelPkgExec}},
		{names: "yarn", spec: cmdSpec{judge: ruleYarn, peel: peelPkgExec}},
		{names: "pip", spec: cmdSpec{judge: rulePip}},
		{names: "pipx", spec: cmdSpec{judge: rulePipx}},
		{names: "uvx", spec: cmdSpec{judge: ruleUvx}},
		{names: "go", spec: cmdSpec{judge: ruleGo}},
		{names: "gem", spec: cmdSpec{judge: ruleGem}},
		{names: "easy_install", spec: always("installs packages globally")},
		{names: "apt", spec: pkgs("install", "remove", "purge", "upgrade", "full-upgrade", "dist-upgrade", "autoremove", "reinstall", "build-dep")},
		{names: "apt-get", spec: pkgs("install", "remove", "purge", "upgrade", "dist-upgrade", "autoremove", "reinstall", "build-dep")},
		{names: "aptitude", spec: pkgs("install", "remove", "purge", "upgrade", "full-upgrade", "safe-upgrade", "reinstall")},
		{names: "yum", spec: pkgs("install", "remove", "erase", "update", "upgrade", "reinstall", "downgrade", "autoremove", "groupinstall", "localinstall")},
		{names: "dnf", spec: pkgs("install", "remove", "erase", "update", "upgrade", "reinstall", "downgrade", "autoremove", "distro-sync", "swap")},
		{names: "microdnf", spec: pkgs("install", "remove", "upgrade", "update")},
		{names: "zypper", spec: pkgs("install", "in", "remove", "rm", "update", "up", "dist-upgrade", "dup", "patch")},
		{names: "brew", spec: pkgs("install", "uninstall", "remove", "rm", "reinstall", "upgrade", "link", "unlink", "tap", "untap", "autoremove", "cleanup")},
		{names: "port", spec: pkgs("install", "uninstall", "upgrade", "selfupdate")},
		{names: "apk", spec: pkgs("add", "del", "upgrade", "fix")},
		{names: "snap", spec: pkgs("install", "remove", "refresh", "revert")},
		{names: "flatpak", spec: pkgs("install", "uninstall", "update")},
		{names: "choco winget", spec: pkgs("install", "uninstall", "upgrade")},
		{names: "scoop", spec: pkgs("install", "uninstall", "update")},
		{names: "emerge", spec: cmdSpec{judge: ruleEmerge}},
		{names: "pacman yay paru", spec: cmdSpec{judge: rulePacman}},
		{names: "nix-env", spec: cmdSpec{judge: ruleNixEnv}},
		{names: "dpkg", spec: cmdSpec{judge: anyFlagDanger("installs or removes system packages", "-i", "--install", "-r", "--remove", "-P", "--purge", "--unpack", "--configure")}},
		{names: "rpm", spec: cmdSpec{judge: anyFlagDanger("installs or removes system packages", "-i", "--install", "-U", "--upgrade", "-e", "--erase", "-F", "--freshen")}},
		{names: "update-alternatives", spec: cmdSpec{judge: anyFlagDanger("changes system alternatives", "--install", "--set", "--remove", "--remove-all", "--config", "--auto")}},
		{names: "cargo", spec: pub("publish", "yank", "owner")},
		{names: "twine", spec: pub("upload", "register")},
		{names: "flit", spec: pub("publish")},
		{names: "vsce", spec: pub("publish", "unpublish")},
		{names: "ovsx", spec: pub("publish")},
		{names: "mvn", spec: pub("deploy", "release:perform")},
		{names: "gradle gradlew", spec: pub("publish", "publishToMavenCentral", "uploadArchives")},
		{names: "pod", spec: pub("trunk")},
		{names: "dotnet", spec: cmdSpec{judge: ruleDotnet}},

		// Infrastructure and remote state.
		{names: "docker", aliases: "docker-compose podman nerdctl podman-compose", spec: cmdSpec{judge: ruleDocker, secretOK: true, projSecretOK: true}},
		{names: "kubectl", aliases: "oc", spec: cmdSpec{judge: ruleKubectl, creds: kubectlCreds, secretOK: true, projSecretOK: true}},
		{names: "helm", spec: cmdSpec{judge: verbRule("changes cluster state", "install", "upgrade", "uninstall", "delete", "del", "un", "rollback", "push"), secretOK: true, projSecretOK: true}},
		{names: "terraform", aliases: "tofu terragrunt", spec: cmdSpec{judge: ruleTerraform, secretOK: true, projSecretOK: true}},
		{names: "pulumi", spec: cmdSpec{judge: verbRule("changes infrastructure", "up", "update", "destroy", "cancel", "import", "refresh")}},
		{names: "aws", spec: cmdSpec{judge: ruleAws, creds: awsCreds, secretOK: true, projSecretOK: true}},
		{names: "gcloud", spec: cmdSpec{judge: ruleCloudWords, secretOK: true, projSecretOK: true,
			creds: credWords(words("auth", "print-access-token"), words("auth", "print-identity-token"), words("print-access-token"))}},
		{names: "az", spec: cmdSpec{judge: ruleCloudWords, secretOK: true, projSecretOK: true, creds: credWords(words("account", "get-access-token"))}},
		{names: "doctl linode-cli hcloud", spec: cmdSpec{judge: ruleCloudWords}},
		{names: "supabase", spec: cmdSpec{judge: ruleSupabase}},
		{names: "gsutil", spec: cmdSpec{judge: ruleGsutil}},
		{names: "heroku", spec: cmdSpec{judge: ruleDeploy, creds: credWords(words("auth:token"))}},
		{names: "fly", aliases: "flyctl", spec: cmdSpec{judge: ruleDeploy}},
		{names: "vercel netlify railway render wrangler firebase surge", spec: cmdSpec{judge: ruleDeploy}},
		{names: "dropdb", spec: always("drops a database")},
		{names: "dropuser", spec: always("drops a database role")},
		{names: "rails rake artisan mix manage.py django-admin sequelize typeorm", spec: cmdSpec{judge: ruleDBTask}},
		{names: "prisma", spec: cmdSpec{judge: rulePrisma}},
		{names: "psql sqlite3 clickhouse-client clickhouse duckdb cockroach mongo mongosh redis-cli cqlsh sqlcmd",
			spec: cmdSpec{judge: ruleSQL, stdin: stdinSQLClient, sql: true}},
		{names: "mysql", aliases: "mariadb", spec: cmdSpec{judge: ruleSQL, stdin: stdinSQLClient, sql: true}},

		// Credential stores.
		{names: "security", spec: cmdSpec{creds: credWords(words("find-generic-password"), words("find-internet-password"), words("dump-keychain"))}},
		{names: "pass lpass", spec: cmdSpec{creds: credWords(words("show"))}},
		{names: "vault", spec: cmdSpec{creds: credWords(words("kv", "get"), words("read"))}},
		{names: "bw keyring", spec: cmdSpec{creds: credWords(words("get"))}},
		{names: "secret-tool", spec: cmdSpec{creds: credWords(words("lookup"))}},

		// The machine: services, processes, disks, accounts.
		{names: "kill", spec: cmdSpec{judge: ruleKill}},
		{names: "killall pkill killall5 skill slay xkill pkill2", spec: always("kills processes by name")},
		{names: "fuser", spec: cmdSpec{judge: anyFlagDanger("kills processes using a file", "-k", "--kill")}},
		{names: "systemctl", spec: cmdSpec{judge: ruleSystemctl}},
		{names: "service", spec: cmdSpec{judge: ruleService}},
		{names: "crontab", spec: cmdSpec{judge: ruleCrontab}},
		{names: "sysctl", spec: cmdSpec{judge: ruleSysctl}},
		{names: "launchctl", spec: cmdSpec{judge: ruleLaunchctl}},
		{names: "init telinit", spec: always("changes the system run level")},
		{names: "mount umount", spec: cmdSpec{judge: argCountDanger("mounts or unmounts filesystems", 0)}},
		{names: "iptables ip6tables nft ufw firewall-cmd pfctl", spec: cmdSpec{judge: ruleFirewall}},
		{names: "hostnamectl timedatectl localectl", spec: cmdSpec{judge: subcmdDanger("set-")}},
		{names: "loginctl", spec: cmdSpec{judge: subcmdDanger("terminate-", "kill-")}},
		{names: "defaults", spec: cmdSpec{judge: subcmdDanger("write", "delete", "import")}},
		{names: "diskutil", spec: cmdSpec{judge: subcmdDanger("erase", "partition", "zero", "random", "secureErase", "reformat", "apfs", "unmount")}},
		{names: "zfs", spec: cmdSpec{judge: subcmdDanger("destroy", "rollback")}},
		{names: "date", spec: cmdSpec{judge: ruleDate}},
		{names: "mkfs", spec: always("formats a filesystem")},
		{names: "mke2fs mkswap mkdosfs mkntfs fdisk sfdisk cfdisk gdisk sgdisk cgdisk parted gparted wipefs blkdiscard badblocks partprobe pvremove vgremove lvremove pvcreate vgcreate mdadm cryptsetup zpool newfs hdparm nvme sg_format flashrom",
			spec: always("formats or partitions a disk")},
		{names: "shutdown reboot halt poweroff kexec pm-suspend pm-hibernate systemd-hibernate", spec: always("shuts down or restarts the machine")},
		{names: "chsh chfn passwd useradd userdel usermod groupadd groupdel groupmod gpasswd chpasswd chage visudo vipw vigr adduser deluser addgroup delgroup newusers dscl sysadminctl modprobe insmod rmmod depmod setcap update-grub grub-install grub-mkconfig efibootmgr csrutil nvram bless spctl kextload kextunload at batch swapon swapoff setenforce semanage tccutil",
			spec: always("changes system or account settings")},
	}
}

// Credential facets that need more than a list of words.

func ghCreds(in *guardCall) bool {
	return credWords(words("auth", "token"))(in) ||
		credWords(words("auth", "status"))(in) && hasLitArg(in.args, "-t", "--show-token")
}

func kubectlCreds(in *guardCall) bool {
	pos := positionalWords(in.args)
	if credWords(words("config", "view"))(in) && hasLitArg(in.args, "--raw", "--flatten") {
		return true
	}
	if !credWords(words("get"))(in) {
		return false
	}
	has := credWords(words("secret"), words("secrets"))(in) || strings.HasPrefix(strings.Join(pos, " "), "get secret/")
	for _, a := range in.args {
		if has && (strings.HasPrefix(a.val, "-o") || strings.HasPrefix(a.val, "--output") || strings.HasPrefix(a.val, "--template")) {
			return true
		}
	}
	return false
}

func awsCreds(in *guardCall) bool {
	if credWords(words("configure", "export-credentials"), words("sts", "get-session-token"), words("ecr", "get-login-password"))(in) {
		return true
	}
	if credWords(words("configure", "get"))(in) {
		for _, p := range positionalWords(in.args) {
			if secrets.IsCredentialVar(p) {
				return true
			}
		}
	}
	return false
}
