package guard

import "sync"

// Tables the guard judges by. Kept apart from the logic so they are easy to
// review and extend.

func nameSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// artifactDirs are regenerable build and cache directories: deleting them
// inside the workspace loses nothing a build cannot recreate.
var artifactDirs = sync.OnceValue(func() map[string]bool {
	return nameSet("node_modules", "build", "dist", "target", "out", "bin", "obj",
		"coverage", ".next", ".nuxt", ".cache", ".venv", "venv", "__pycache__", ".pytest_cache",
		".mypy_cache", ".ruff_cache", ".tox", ".nox", ".gradle", ".parcel-cache", ".turbo",
		".svelte-kit", ".angular", ".eggs", "htmlcov", ".nyc_output", "tmp", ".tmp",
		".terraform", ".sass-cache", "_build", ".stack-work", "dist-newstyle", "zig-cache",
		"zig-out", ".zig-cache", ".dart_tool", "CMakeFiles", "cmake-build-debug",
		"cmake-build-release", ".build", "DerivedData", ".expo", ".vite", "storybook-static",
		".docusaurus", "vendor", "site", "_site", ".jekyll-cache")
})

// artifactFiles are file-name patterns of regenerable outputs.
var artifactFiles = sync.OnceValue(func() map[string]bool {
	return nameSet("*.o", "*.a", "*.so", "*.dylib", "*.dll", "*.exe", "*.obj", "*.pyc",
		"*.pyo", "*.class", "*.log", "*.tmp", "*.temp", "*.bak", "*.orig", "*.rej", "*.swp",
		"*~", "*.test", "*.out", "*.prof", "*.pprof", "*.cov", "*.coverprofile", "*.lcov",
		".coverage", "coverage.*", "*.egg-info", "*.tsbuildinfo", ".DS_Store", "*.gcda",
		"*.gcno", "*.d", "*.whl", "*.tgz", "*.pyd", "*.lo", "*.la", "*.elc", "*.hi",
		"*.cmi", "*.cmo", "*.cmx", "*.beam", "*.jar", "*.war", "*.stackdump", "core")
})

// sqlDanger matches SQL that drops or empties data; DELETE and UPDATE are
// judged per statement for a WHERE clause.
var (
	sqlDrop   = lazyRegexp(`(?is)\b(drop\s+(table|database|schema|view|index|user|role|owned|function|procedure|trigger|sequence|materialized|collection|keyspace)|truncate(\s+table)?\s+[\w"'\x60.]+|alter\s+table\s+.*\bdrop\b|flushall|flushdb|dropdatabase\s*\(|\.drop\s*\(\s*\))`)
	sqlDelete = lazyRegexp(`(?is)^\s*(delete\s+from|update\s+[\w"'\x60.]+\s+set)\b`)
	sqlWhere  = lazyRegexp(`(?i)\bwhere\b`)
	mongoWipe = lazyRegexp(`(?i)(deleteMany|remove)\s*\(\s*\{\s*\}\s*\)`)
)
