package guard

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled on its first use. The guard's
// patterns are many and large; compiled at package initialisation they
// slowed the start of every run of aci, also the runs that check no
// command.
type lazyRE struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

func lazyRegexp(pattern string) *lazyRE { return &lazyRE{pattern: pattern} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pattern) })
	return l.re
}

func (l *lazyRE) MatchString(s string) bool  { return l.get().MatchString(s) }
func (l *lazyRE) FindString(s string) string { return l.get().FindString(s) }
func (l *lazyRE) ReplaceAllString(s, repl string) string {
	return l.get().ReplaceAllString(s, repl)
}
func (l *lazyRE) ReplaceAllStringFunc(s string, f func(string) string) string {
	return l.get().ReplaceAllStringFunc(s, f)
}
func (l *lazyRE) FindAllStringIndex(s string, n int) [][]int {
	return l.get().FindAllStringIndex(s, n)
}
func (l *lazyRE) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
func (l *lazyRE) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}
