package platform

import (
	"os"
	"path/filepath"
	"runtime"
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

// The CPU quota is read from fixture cgroup trees written to a temporary
// directory (the process's /proc/self/cgroup among them): v2, v1 mounted
// as cpu or as cpu,cpuacct, no quota, and quotas over the machine's CPUs.
func TestContainerCPUs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string // under the fixture's root; "self" is /proc/self/cgroup
		cpus  int
		want  float64
	}{
		{"v2 one and a half", map[string]string{"self": "0::/kubepods/pod1/c1\n", "kubepods/pod1/c1/cpu.max": "150000 100000\n"}, 8, 1.5},
		{"v2 namespaced", map[string]string{"self": "0::/\n", "cpu.max": "200000 100000\n"}, 8, 2},
		{"v2 no quota", map[string]string{"self": "0::/\n", "cpu.max": "max 100000\n"}, 4, 4},
		{"v2 over the machine", map[string]string{"self": "0::/\n", "cpu.max": "800000 100000\n"}, 2, 2},
		{"v1", map[string]string{"self": "4:memory:/docker/abc\n3:cpu:/docker/abc\n", "cpu/docker/abc/cpu.cfs_quota_us": "50000\n", "cpu/docker/abc/cpu.cfs_period_us": "100000\n"}, 2, 0.5},
		{"v1 cpu,cpuacct", map[string]string{"self": "3:cpu,cpuacct:/k/p\n", "cpu,cpuacct/k/p/cpu.cfs_quota_us": "300000", "cpu,cpuacct/k/p/cpu.cfs_period_us": "100000"}, 16, 3},
		{"v1 no quota", map[string]string{"self": "1:cpu:/\n", "cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, 2, 2},
		{"v1 namespaced", map[string]string{"self": "1:cpu:/somewhere/else\n", "cpu/cpu.cfs_quota_us": "100000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 2, 1},
		{"garbage", map[string]string{"self": "0::/\n", "cpu.max": "lots 100000\n"}, 2, 2},
		{"no cgroup", map[string]string{}, 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "cg")
			for name, body := range tc.files {
				path := filepath.Join(root, name)
				if name == "self" {
					path = filepath.Join(dir, "self-cgroup")
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			read := func(name string) (string, error) {
				if name == "/proc/self/cgroup" {
					name = filepath.Join(dir, "self-cgroup")
				}
				return readFile(name)
			}
			if got := containerCPUs(root, read, tc.cpus); got != tc.want {
				t.Errorf("%v CPUs, want %v", got, tc.want)
			}
		})
	}
	if got := ContainerCPUs(); got <= 0 || got > float64(runtime.NumCPU()) {
		t.Errorf("this process: %v CPUs of %d", got, runtime.NumCPU())
	}
}
