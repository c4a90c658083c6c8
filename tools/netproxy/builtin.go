package netproxy

// builtinAllow are the hosts development needs, reached on ports 80 and
// 443: the package registries of the common ecosystems and the CDNs they
// download from, and the git forges over HTTPS. The model's own endpoint is
// not here: a command has no business talking to it unless the person says
// so. Hosts that accept uploads from anyone holding a key (the forges, the
// registries' publish endpoints) can still carry data out; the list narrows
// the way out, it does not seal it.
var builtinAllow = []string{
	// JavaScript: npm, Yarn, JSR, Deno, Node.js releases.
	"registry.npmjs.org", "registry.npmjs.com", "registry.yarnpkg.com", "repo.yarnpkg.com",
	"jsr.io", "npm.jsr.io", "deno.land", "dl.deno.land", "nodejs.org",
	// Python: PyPI and its file CDN, conda.
	"pypi.org", "files.pythonhosted.org", "pypi.python.org", "bootstrap.pypa.io",
	"conda.anaconda.org", "repo.anaconda.com",
	// Rust: crates.io and its index and CDN, rustup.
	"crates.io", "index.crates.io", "static.crates.io", "static.rust-lang.org", "sh.rustup.rs",
	// Go: the module proxy, the checksum database, toolchains.
	"proxy.golang.org", "sum.golang.org", "index.golang.org", "go.dev", "golang.org", "dl.google.com",
	// Ruby, Java/Kotlin/Scala, .NET, PHP, Elixir/Erlang, Dart, Haskell, Perl, Swift/ObjC.
	"rubygems.org", "index.rubygems.org", "api.rubygems.org",
	"repo.maven.apache.org", "repo1.maven.org", "central.sonatype.com", "plugins.gradle.org",
	"services.gradle.org", "downloads.gradle.org", "repo.scala-sbt.org", "scala.jfrog.io",
	"api.nuget.org", "globalcdn.nuget.org", "www.nuget.org", "dotnetcli.azureedge.net",
	"repo.packagist.org", "packagist.org", "getcomposer.org",
	"hex.pm", "repo.hex.pm", "builds.hex.pm",
	"pub.dev", "pub.dartlang.org",
	"hackage.haskell.org", "cpan.metacpan.org", "www.cpan.org", "cdn.cocoapods.org",
	// Linux distributions' package mirrors.
	"deb.debian.org", "security.debian.org", "archive.ubuntu.com", "*.archive.ubuntu.com",
	"security.ubuntu.com", "ports.ubuntu.com", "dl-cdn.alpinelinux.org", "mirrors.fedoraproject.org",
	// Git forges over HTTPS, and where they serve archives and raw files.
	"github.com", "codeload.github.com", "objects.githubusercontent.com", "raw.githubusercontent.com",
	"release-assets.githubusercontent.com", "gitlab.com", "bitbucket.org", "codeberg.org",
	"git.sr.ht", "salsa.debian.org",
}

// Builtin is the built-in allow list as rules.
func Builtin() []Rule {
	rules, errs := ParseRules(builtinAllow)
	if len(errs) > 0 {
		panic(errs[0]) // a typo in the list above: caught by the tests
	}
	return rules
}

// BuiltinHosts is the built-in allow list as written, for the docs and
// the person.
func BuiltinHosts() []string { return append([]string(nil), builtinAllow...) }
