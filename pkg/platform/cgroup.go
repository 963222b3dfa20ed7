package platform

import (
	"os"
	"path/filepath"
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

func readFile(name string) (string, error) {
	b, err := os.ReadFile(name) //nolint:gosec // G304: fixed cgroup paths
	return string(b), err
}

// cgroupMemoryLimit reads the limit of the process's own cgroup under
// root: the path /proc/self/cgroup names (the v2 entry "0::/path", or the
// v1 memory controller's), falling back to the mount's root, which is the
// container's own cgroup under a private cgroup namespace. "max", an
// absent file and v1's "no limit" (a page-rounded 2^63) are 0.
func cgroupMemoryLimit(root string, read func(string) (string, error)) int64 {
	self, _ := read("/proc/self/cgroup")
	var v1, v2 string
	for line := range strings.SplitSeq(self, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case strings.Contains(","+parts[1]+",", ",memory,"):
			v1 = parts[2]
		}
	}
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
