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
		// From the read-only turn's list (/review before it ran in plan mode).
		{"git --no-pager log --oneline -5 | head", true},
		{"git status --short && git diff --stat 2>/dev/null", true},
		{"git branch -a", true},
		{"git show HEAD~1 -- x.go > /dev/null", true},
		{"git checkout main", false},
		{"git -c core.pager=sh log", false},
		{"git diff --output=x", false},
		{"git branch new-feature", false},
		{"find . -name '*.go' | wc -l", true},
		{"sort -rn in", true},
		{"sort -rno out in", false},
		{"uniq a", true},
		{"uniq a b", false},
		{"ls; touch x", false},
		{"sed -f script.sed x.go", false},
		{"GIT_EXTERNAL_DIFF=rm git diff", false},
		{"X=1; git diff", false},
		{"git grep -O foo", false},
		{"git diff --textconv", false},
		{"bash -c 'rm x'", false},
		{"cat <<EOF > x\nhi\nEOF", false},
	} {
		if got := ReadOnly(tc.cmd); got != tc.want {
			t.Errorf("ReadOnly(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}
