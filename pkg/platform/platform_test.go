package platform

import "testing"

func TestMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		container  int64
		gomemlimit string
		want       int64
		ok         bool
	}{
		{1 << 30, "", 966367638, true}, // 1 GiB → 0.9 GiB
		{512 << 20, "", 483183819, true},
		{1 << 30, "800MiB", 0, false}, // the operator's GOMEMLIMIT stays
		{0, "", 0, false},             // no container limit known
	} {
		got, ok := memoryLimit(tc.container, tc.gomemlimit)
		if got != tc.want || ok != tc.ok {
			t.Errorf("memoryLimit(%d, %q) = %d, %v; want %d, %v", tc.container, tc.gomemlimit, got, ok, tc.want, tc.ok)
		}
	}
}
