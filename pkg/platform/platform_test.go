package platform

import (
	"os"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		container, native int64
		gomemlimit        string
		want              int64
		ok                bool
	}{
		{1 << 30, 0, "", 966367638, true}, // 1 GiB → 0.9 GiB
		{512 << 20, 0, "", 483183819, true},
		{1 << 30, 160 << 20, "", 864 << 20, true},  // the native memory set aside instead
		{100 << 20, 160 << 20, "", 94371840, true}, // more native than the container: 90 %
		{1 << 30, 0, "800MiB", 0, false},           // the operator's GOMEMLIMIT stays
		{0, 0, "", 0, false},                       // no container limit known
	} {
		got, ok := memoryLimit(tc.container, tc.native, tc.gomemlimit)
		if got != tc.want || ok != tc.ok {
			t.Errorf("memoryLimit(%d, %d, %q) = %d, %v; want %d, %v", tc.container, tc.native, tc.gomemlimit, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCgroupMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"v2", map[string]string{"/proc/self/cgroup": "0::/kubepods/pod1/c1\n", "/cg/kubepods/pod1/c1/memory.max": "1073741824\n"}, 1 << 30},
		{"v2 unlimited", map[string]string{"/proc/self/cgroup": "0::/\n", "/cg/memory.max": "max\n"}, 0},
		{"v2 namespaced", map[string]string{"/proc/self/cgroup": "0::/\n", "/cg/memory.max": "536870912"}, 512 << 20},
		{"v1", map[string]string{"/proc/self/cgroup": "4:memory:/docker/abc\n1:cpu:/\n", "/cg/memory/docker/abc/memory.limit_in_bytes": "805306368\n"}, 768 << 20},
		{"v1 unlimited", map[string]string{"/proc/self/cgroup": "4:memory:/x\n", "/cg/memory/x/memory.limit_in_bytes": "9223372036854771712\n"}, 0},
		{"none", map[string]string{}, 0},
	} {
		read := func(name string) (string, error) {
			s, ok := tc.files[name]
			if !ok {
				return "", os.ErrNotExist
			}
			return s, nil
		}
		if got := cgroupMemoryLimit("/cg", read); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := ContainerMemory(3 << 30); got != 3<<30 {
		t.Errorf("a configured limit is kept: %d", got)
	}
}
