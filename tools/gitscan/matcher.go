package gitscan

import "github.com/aci-dev/aci/tools/secrets"

// matcher finds secrets in content, in the forms secrets.Redactor knows
// (plain, JSON, URL, base64, hex).
type matcher struct {
	all    *secrets.Redactor
	each   []*secrets.Redactor
	labels []string
}

func newMatcher(found []Secret) *matcher {
	m := &matcher{all: secrets.NewRedactor()}
	for _, s := range found {
		r := secrets.NewRedactor(s.Value)
		if r.Empty() {
			continue // too short to be told from ordinary text
		}
		m.all.Add(s.Value)
		m.each = append(m.each, r)
		m.labels = append(m.labels, s.Label)
	}
	return m
}

func (m *matcher) empty() bool { return len(m.each) == 0 }

// find returns the label of a secret in data, "" when none.
func (m *matcher) find(data []byte) string {
	if m.empty() || !m.all.ContainsBytes(data) {
		return ""
	}
	for i, r := range m.each {
		if r.ContainsBytes(data) {
			return m.labels[i]
		}
	}
	return "a secret value"
}
