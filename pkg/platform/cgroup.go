package platform

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// cgroupRoot is where the process's cgroup hierarchy is mounted.
const cgroupRoot = "/sys/fs/cgroup"

// ContainerMemory is the memory limit the process runs under: configured
// (HOOKLINE_MEMORY_LIMIT, the downward API's limits.memory) when set, else
// its cgroup's limit (v2 memory.max, or v1 memory.limit_in_bytes), so a
// container started without the variable (docker run -m, compose's
// mem_limit, a forgotten manifest line) still gets a Go heap held under
// its limit. 0 means no limit is known.
func ContainerMemory(configured int64) int64 {
	if configured > 0 {
		return configured
	}
	return cgroupMemoryLimit(cgroupRoot, readFile)
}

// ContainerCPUs is how many CPUs the process may use: its cgroup's CPU
// quota (v2 cpu.max, or v1 cpu.cfs_quota_us ÷ cpu.cfs_period_us; a
// Kubernetes limits.cpu of 1500m is 1.5), at most the CPUs it may run on
// (runtime.NumCPU: the machine's, or its affinity mask's), which is also
// the answer without a quota. Fractions are kept: a caller dividing the
// CPUs between jobs rounds as suits it. The Go runtime sizes GOMAXPROCS
// from the same quota on its own (rounded up, at least 2: Go 1.25's
// container-aware default, on since the modules say go 1.26).
func ContainerCPUs() float64 {
	return containerCPUs(cgroupRoot, readFile, runtime.NumCPU())
}

func readFile(name string) (string, error) {
	b, err := os.ReadFile(name) //nolint:gosec // G304: fixed cgroup paths
	return string(b), err
}

// cgroupPaths is the process's own cgroup: the v2 path and the path of
// the v1 hierarchy with the named controller, as /proc/self/cgroup gives
// them ("0::/path"; "4:memory:/path", "3:cpu,cpuacct:/path").
func cgroupPaths(read func(string) (string, error), controller string) (v2, v1 string) {
	self, _ := read("/proc/self/cgroup")
	for line := range strings.SplitSeq(self, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case strings.Contains(","+parts[1]+",", ","+controller+","):
			v1 = parts[2]
		}
	}
	return v2, v1
}

// cgroupMemoryLimit reads the limit of the process's own cgroup under
// root: the path /proc/self/cgroup names (the v2 entry "0::/path", or the
// v1 memory controller's), falling back to the mount's root, which is the
// container's own cgroup under a private cgroup namespace. "max", an
// absent file and v1's "no limit" (a page-rounded 2^63) are 0.
func cgroupMemoryLimit(root string, read func(string) (string, error)) int64 {
	v2, v1 := cgroupPaths(read, "memory")
	candidates := []string{
		filepath.Join(root, v2, "memory.max"), filepath.Join(root, "memory.max"),
		filepath.Join(root, "memory", v1, "memory.limit_in_bytes"), filepath.Join(root, "memory", "memory.limit_in_bytes"),
	}
	for _, name := range candidates {
		s, err := read(name)
		if err != nil {
			continue
		}
		s = strings.TrimSpace(s)
		if s == "max" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 || n >= 1<<62 {
			return 0
		}
		return n
	}
	return 0
}

// containerCPUs is the CPU quota of the process's own cgroup under root,
// found as cgroupMemoryLimit finds the memory limit (v2's cpu.max
// "<quota> <period>", v1's cpu controller, mounted as cpu or cpu,cpuacct),
// capped at cpus; cpus when no quota is set ("max", v1's -1), none is
// readable or it does not parse.
func containerCPUs(root string, read func(string) (string, error), cpus int) float64 {
	v2, v1 := cgroupPaths(read, "cpu")
	quota := func(q, period string) float64 {
		if strings.TrimSpace(q) == "max" {
			return 0
		}
		qn, err1 := strconv.ParseFloat(strings.TrimSpace(q), 64)
		pn, err2 := strconv.ParseFloat(strings.TrimSpace(period), 64)
		if err1 != nil || err2 != nil || qn <= 0 || pn <= 0 {
			return 0
		}
		return qn / pn
	}
	limit := -1.0 // not found yet
	for _, name := range []string{filepath.Join(root, v2, "cpu.max"), filepath.Join(root, "cpu.max")} {
		if s, err := read(name); err == nil {
			q, period, _ := strings.Cut(strings.TrimSpace(s), " ")
			limit = quota(q, period)
			break
		}
	}
	for _, dir := range []string{filepath.Join(root, "cpu", v1), filepath.Join(root, "cpu,cpuacct", v1), filepath.Join(root, "cpu")} {
		if limit >= 0 {
			break
		}
		q, err1 := read(filepath.Join(dir, "cpu.cfs_quota_us"))
		period, err2 := read(filepath.Join(dir, "cpu.cfs_period_us"))
		if err1 == nil && err2 == nil {
			limit = quota(q, period)
		}
	}
	if limit <= 0 {
		return float64(cpus)
	}
	return math.Min(limit, float64(cpus))
}
