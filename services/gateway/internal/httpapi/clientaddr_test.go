package httpapi

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	lb := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, c := range []struct {
		name, remote, xff string
		trusted           []netip.Prefix
		want              string
	}{
		{"socket by default", "192.0.2.1:5000", "203.0.113.7", nil, "192.0.2.1"},
		{"untrusted peer's header ignored", "192.0.2.1:5000", "203.0.113.7", lb, "192.0.2.1"},
		{"trusted peer: rightmost untrusted hop", "10.1.1.1:5000", "198.51.100.1, 203.0.113.7, 10.2.2.2", lb, "203.0.113.7"},
		{"garbage stops the walk", "10.1.1.1:5000", "203.0.113.7, junk", lb, "10.1.1.1"},
		{"all hops trusted", "10.1.1.1:5000", "10.3.3.3", lb, "10.3.3.3"},
		{"IPv6 grouped by /64", "[2001:db8:1:2:aaaa::1]:5000", "", nil, "2001:db8:1:2::/64"},
		{"IPv4-mapped IPv6 is IPv4", "[::ffff:192.0.2.9]:5000", "", nil, "192.0.2.9"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := clientAddr(r, c.trusted); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
