// Package netproxy is the one way out of the network namespace that
// contained commands run in: an HTTP proxy (plain requests and HTTPS
// CONNECT tunnels) that lets a command reach the hosts on an allow list,
// refuses those on a deny list, and asks about the rest. It serves whatever
// listener it is given (the sandbox hands it one per command), so every
// connection it judges is known to belong to one command.
package netproxy

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Verdict is what the policy says of a host and port.
type Verdict int

// The verdicts. Ask means the host is on neither list: a person decides.
const (
	Ask Verdict = iota
	Allow
	Deny
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	}
	return "ask"
}

// defaultPorts are the ports a rule without one covers: the web's.
var defaultPorts = []int{80, 443}

// Rule matches hosts and ports. Written forms:
//
//	example.com          that host, ports 80 and 443
//	*.example.com        every subdomain of example.com (not example.com)
//	example.com:8080     that port only; "example.com:*" any port
//	10.0.0.5, [::1]:8443 an IP address (IPv6 in brackets when a port follows)
//	10.0.0.0/8, fd00::/8 a range of addresses
type Rule struct {
	text     string
	host     string       // lowercase, no trailing dot; "" for an IP rule
	wildcard bool         // host is a parent domain: match its subdomains
	prefix   netip.Prefix // valid for an IP rule
	ports    []int        // nil: any port
}

// String is the rule as written.
func (r Rule) String() string { return r.text }

// ParseRule reads one rule in the forms Rule lists.
func ParseRule(s string) (Rule, error) {
	text := strings.TrimSpace(s)
	r := Rule{text: text, ports: defaultPorts}
	hostPart, portPart, err := splitRule(text)
	if err != nil {
		return Rule{}, fmt.Errorf("network rule %q: %w", s, err)
	}
	switch portPart {
	case "":
	case "*":
		r.ports = nil
	default:
		p, err := strconv.Atoi(portPart)
		if err != nil || p < 1 || p > 65535 {
			return Rule{}, fmt.Errorf("network rule %q: bad port %q", s, portPart)
		}
		r.ports = []int{p}
	}
	if pf, err := netip.ParsePrefix(hostPart); err == nil {
		r.prefix = pf.Masked()
		return r, nil
	}
	if a, err := netip.ParseAddr(hostPart); err == nil {
		r.prefix = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		return r, nil
	}
	h := normalHost(hostPart)
	if rest, ok := strings.CutPrefix(h, "*."); ok {
		r.wildcard, h = true, rest
	}
	if !validHostname(h) {
		return Rule{}, fmt.Errorf("network rule %q: %q is not a host name, address or range", s, hostPart)
	}
	r.host = h
	return r, nil
}

// splitRule separates "host:port" (and "[v6]:port"); a bare IPv6 address
// or range keeps its colons.
func splitRule(s string) (host, port string, err error) {
	if s == "" {
		return "", "", fmt.Errorf("empty")
	}
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", fmt.Errorf("missing ]")
		}
		host, rest := s[1:end], s[end+1:]
		if rest == "" {
			return host, "", nil
		}
		if !strings.HasPrefix(rest, ":") {
			return "", "", fmt.Errorf("unexpected %q after ]", rest)
		}
		return host, rest[1:], nil
	}
	if strings.Count(s, ":") > 1 { // IPv6 without brackets: no port
		return s, "", nil
	}
	host, port, _ = strings.Cut(s, ":")
	if strings.Contains(s, ":") && port == "" {
		return "", "", fmt.Errorf("empty port")
	}
	return host, port, nil
}

// normalHost lowercases h and drops a trailing dot ("example.com." is
// example.com to DNS).
func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// validHostname accepts ASCII names of letters, digits, hyphens and dots
// (underscores too: some service names have them). Unicode names must be
// written in their xn-- form, so what the person reads is what is matched.
func validHostname(h string) bool {
	if h == "" || len(h) > 253 || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, c := range h {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
		if !ok {
			return false
		}
	}
	return true
}

// Matches reports whether the rule covers host (a name or an IP literal,
// IPv6 with or without brackets) on port.
func (r Rule) Matches(host string, port int) bool {
	if r.ports != nil && !containsInt(r.ports, port) {
		return false
	}
	a, isIP := parseIP(host)
	if r.host == "" {
		return isIP && r.prefix.Contains(a)
	}
	if isIP {
		return false // a name rule never covers an address: it may be anyone's
	}
	h := normalHost(host)
	if r.wildcard {
		return strings.HasSuffix(h, "."+r.host)
	}
	return h == r.host
}

// parseIP reads an IP literal, IPv4-mapped IPv6 as IPv4, and a zone
// dropped.
func parseIP(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	a, err := netip.ParseAddr(h)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Policy decides which hosts a contained command may reach: a host on the
// deny list is refused, one on the allow list passes, any other is asked.
// Deny wins over allow, so a narrower list can take away what a wider one
// gave.
type Policy struct {
	Allow []Rule
	Deny  []Rule
}

// Decide judges host (a name or an IP literal) on port, and says why in a
// few words: the rule that decided ("deny list: *.example.com"), or ""
// when none did (Ask).
func (p Policy) Decide(host string, port int) (Verdict, string) {
	if host == "" || port < 1 || port > 65535 {
		return Deny, "no valid host and port"
	}
	if _, isIP := parseIP(host); !isIP && !validHostname(normalHost(host)) {
		return Deny, "not a valid host name"
	}
	for _, r := range p.Deny {
		if r.Matches(host, port) {
			return Deny, "deny list: " + r.text
		}
	}
	for _, r := range p.Allow {
		if r.Matches(host, port) {
			return Allow, "allow list: " + r.text
		}
	}
	return Ask, ""
}

// ParseRules reads rules, returning those that parse and an error naming
// those that do not.
func ParseRules(list []string) ([]Rule, []error) {
	var out []Rule
	var errs []error
	for _, s := range list {
		r, err := ParseRule(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errs
}
