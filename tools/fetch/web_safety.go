package fetch

import (
	"github.com/aci-dev/aci/tools/secrets"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// SecretInURL returns why fetching rawURL would send a secret, or "": a
// query value (or the user-info, path or fragment) that holds a value of
// one of sets (the API key, a credential variable's value, a .env value),
// in any common encoding.
// The caller asks the person before fetching such a URL.
func SecretInURL(rawURL string, sets ...*secrets.Redactor) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return ""
	}
	var parts []string
	for k, vs := range u.Query() {
		parts = append(parts, k)
		parts = append(parts, vs...)
	}
	parts = append(parts, u.RawQuery, u.User.String(), u.Path, u.RawPath, u.Fragment, u.Hostname())
	for _, p := range parts {
		if p == "" {
			continue
		}
		if slices.ContainsFunc(sets, func(s *secrets.Redactor) bool { return s.Contains(p) }) {
			return "the URL holds a secret (the API key, a credential variable or a .env value), which fetching it would send to " + u.Hostname()
		}
	}
	return ""
}

// nat64 are the NAT64 prefixes (RFC 6052 well-known, RFC 8215 local-use)
// that embed an IPv4 address in their last 32 bits.
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	carrierNAT     = netip.MustParsePrefix("100.64.0.0/10")
	v4Compatible   = netip.MustParsePrefix("::/96")
)

// InternalAddr reports addresses inside private networks or the machine's
// link, which a page may use to reach cloud metadata or intranet services:
// 10/8, 172.16/12, 192.168/16, carrier-grade NAT 100.64/10 (a cloud metadata
// address lives there), fc00::/7, 169.254/16, fe80::/10, the unspecified
// address, and IPv6 forms that carry an IPv4 address (IPv4-mapped,
// IPv4-compatible ::a.b.c.d, NAT64, 6to4) whose IPv4 is internal or
// loopback: behind a translator, "loopback" is the translator's. Plain
// loopback is not internal: a local dev server is an everyday target.
func InternalAddr(ip netip.Addr) bool {
	if ip.Is4In6() {
		return InternalAddr(ip.Unmap())
	}
	if ip.Is4() {
		return ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() || carrierNAT.Contains(ip)
	}
	if ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() {
		return true
	}
	if ip.IsLoopback() {
		return false
	}
	b := ip.As16()
	var embedded netip.Addr
	switch {
	case nat64WellKnown.Contains(ip), v4Compatible.Contains(ip):
		embedded = netip.AddrFrom4([4]byte(b[12:16]))
	case nat64Local.Contains(ip):
		return true // a local translator reaches its own network
	case sixToFour.Contains(ip):
		embedded = netip.AddrFrom4([4]byte(b[2:6]))
	default:
		return false
	}
	return InternalAddr(embedded) || embedded.IsLoopback()
}
