package guard

import "testing"

func TestReadOnly(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"ls -la", true},
		{"cat a.txt | grep foo | wc -l", true},
		{"git status && git diff HEAD~1", true},
		{"git -C sub log --oneline", true},
		{"git branch", true},
		{"git branch -D main", false},
		{"git commit -m x", false},
		{"find . -name '*.go'", true},
		{"find . -name '*.go' -delete", false},
		{"find . -exec rm {} ;", false},
		{"sed -n '1,20p' a.go", true},
		{"sed 's/a/b/g' a.go", true},
		{"sed -i 's/a/b/' a.go", false},
		{"sed -ni 's/a/b/' a.go", false},
		{"sed 's/a/b/w out' a.go", false},
		{"sed '1e rm x' a.go", false},
		{"echo hi > out.txt", false},
		{"echo hi >> out.txt", false},
		{"ls 2>/dev/null", true},
		{"ls 2>&1", true},
		{"echo $(rm -rf x)", false},
		{"rm -rf x", false},
		{"python3 -c 'open(\"x\",\"w\")'", false},
		{"npm test", false},
		{"sort -o out a", false},
		{"$CMD x", false},
		{"f() { rm x; }; f", false},
		{"cat <<EOF\nhi\nEOF", true},
		{"grep -r foo . ; ls", true},
		{"tee out.txt", false},
		{"unterminated '", false},
	} {
		if got := ReadOnly(tc.cmd); got != tc.want {
			t.Errorf("ReadOnly(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}
