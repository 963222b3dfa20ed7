package httpapi

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// clientAddr names the client of r for per-address limits. The socket
// peer is the client unless it is a trusted proxy; then X-Forwarded-For is
// read from the right, skipping trusted proxies, and the first other
// address is the client (entries further left are the client's own claims
// and could be forged). IPv6 clients are grouped by /64, the block one
// subscriber usually holds.
func clientAddr(r *http.Request, trusted []netip.Prefix) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	ip := ap.Addr().Unmap()
	if isTrusted(ip, trusted) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for _, h := range slices.Backward(hops) {
			a, err := netip.ParseAddr(strings.TrimSpace(h))
			if err != nil {
				break
			}
			ip = a.Unmap()
			if !isTrusted(ip, trusted) {
				break
			}
		}
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

func isTrusted(ip netip.Addr, trusted []netip.Prefix) bool {
	return slices.ContainsFunc(trusted, func(p netip.Prefix) bool { return p.Contains(ip) })
}
