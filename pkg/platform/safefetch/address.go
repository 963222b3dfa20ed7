package safefetch

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Well-known cloud metadata endpoints. They fall inside ranges refused anyway
// (link-local, fc00::/7); they are named so the error says what was hit.
var (
	metadataV4 = netip.MustParseAddr("169.254.169.254")
	metadataV6 = netip.MustParseAddr("fd00:ec2::254")
)

// nonPublicRanges are refused in addition to what netip's predicates cover.
// They are not reachable on the public internet, so a user URL pointing at
// them is at best a mistake and at worst a probe of our network.
var nonPublicRanges = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "a this-network address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol address"},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved or broadcast address"},
	// IPv4-compatible IPv6 (deprecated) can reach IPv4 hosts on some stacks.
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible IPv6 address"},
	{netip.MustParsePrefix("100::/64"), "a discard-only address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo address"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
}

// Translation prefixes that embed an IPv4 address a gateway will connect to
// on our behalf; the embedded address is checked like any other.
var (
	nat64Prefix  = netip.MustParsePrefix("64:ff9b::/96")
	sixToFourNet = netip.MustParsePrefix("2002::/16")
)

// nonPublic returns why ip may not be fetched, or "" when it is public.
func nonPublic(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	switch {
	case !ip.IsValid():
		return "not a valid address"
	case ip.IsUnspecified():
		return "the unspecified address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip == metadataV4 || ip == metadataV6:
		return "the cloud metadata service"
	case ip.IsLinkLocalUnicast():
		return "a link-local address"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	case ip.IsPrivate():
		return "a private address"
	}
	for _, r := range nonPublicRanges {
		if r.prefix.Contains(ip) {
			return r.reason
		}
	}
	if nat64Prefix.Contains(ip) {
		b := ip.As16()
		if reason := nonPublic(netip.AddrFrom4([4]byte(b[12:16]))); reason != "" {
			return "NAT64 for " + reason
		}
	}
	if sixToFourNet.Contains(ip) {
		b := ip.As16()
		if reason := nonPublic(netip.AddrFrom4([4]byte(b[2:6]))); reason != "" {
			return "6to4 for " + reason
		}
	}
	return ""
}

// rule is one AllowHosts or DenyHosts entry.
type rule struct {
	// prefix is set for address and CIDR entries.
	prefix netip.Prefix
	// name is set for hostname entries (lower case, no trailing dot).
	name string
	// port restricts the entry to one port; "" matches any.
	port string
}

func (r rule) matches(name string, ip netip.Addr, port string) bool {
	if r.port != "" && r.port != port {
		return false
	}
	if r.prefix.IsValid() {
		return ip.IsValid() && r.prefix.Contains(ip)
	}
	return r.name == name
}

func matchAny(rules []rule, name string, ip netip.Addr, port string) bool {
	for _, r := range rules {
		if r.matches(name, ip, port) {
			return true
		}
	}
	return false
}

func parseRules(entries []string) []rule {
	rules := make([]rule, 0, len(entries))
	for _, e := range entries {
		if r, err := parseRule(e); err == nil {
			rules = append(rules, r)
		}
	}
	return rules
}

// parseRule accepts "name", "name:port", "ip", "[v6]", "ip:port",
// "[v6]:port" and "cidr".
func parseRule(entry string) (rule, error) {
	s := strings.TrimSpace(entry)
	if s == "" {
		return rule{}, errors.New("empty entry")
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return rule{}, fmt.Errorf("bad CIDR: %w", err)
		}
		return rule{prefix: p.Masked()}, nil
	}
	if ip, ok := parseIP(s); ok {
		return rule{prefix: netip.PrefixFrom(ip, ip.BitLen())}, nil
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return rule{}, fmt.Errorf("bad port %q", p)
		}
		host, port = h, p
	}
	if ip, ok := parseIP(host); ok {
		return rule{prefix: netip.PrefixFrom(ip, ip.BitLen()), port: port}, nil
	}
	name := normalizeHost(host)
	if !validHostname(name) {
		return rule{}, fmt.Errorf("not a hostname, address or CIDR")
	}
	return rule{name: name, port: port}, nil
}

func parseIP(s string) (netip.Addr, bool) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.Unmap().WithZone(""), true
}

func validHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.', c == '_':
		default:
			return false
		}
	}
	return true
}
