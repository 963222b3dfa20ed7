package main

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"

	hookline "hookline.dev/sdk/go"
)

// devEnvFile is where `make up` writes the dev stack's addresses and key.
const devEnvFile = ".hookline/dev.env"

// newClient is the client of the settings.
func newClient(getenv func(string) string) (*hookline.Client, error) {
	key, base, err := settings(getenv)
	if err != nil {
		return nil, err
	}
	return hookline.New(hookline.WithBaseURL(base), hookline.WithAPIKey(key), hookline.WithUserAgent("hookline-cli/"+hookline.Version))
}

// settings reads the key and base URL from the environment, falling back
// to the first .hookline/dev.env from the working directory up.
func settings(getenv func(string) string) (key, base string, err error) {
	key, base = getenv("HOOKLINE_API_KEY"), getenv("HOOKLINE_BASE_URL")
	if key == "" || base == "" {
		if wd, err := os.Getwd(); err == nil {
			if file := findDevEnv(wd); file != "" {
				vars, err := readEnvFile(file)
				if err != nil {
					return "", "", err
				}
				if key == "" {
					key = vars["HOOKLINE_API_KEY"]
				}
				if base == "" {
					base = vars["HOOKLINE_BASE_URL"]
				}
			}
		}
	}
	if key == "" {
		return "", "", errors.New("no API key: set HOOKLINE_API_KEY, or run `make up`, which writes .hookline/dev.env")
	}
	if base == "" {
		base = hookline.DefaultBaseURL
	}
	return key, base, nil
}

// findDevEnv looks for .hookline/dev.env in dir and its parents.
func findDevEnv(dir string) string {
	for {
		p := filepath.Join(dir, devEnvFile)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// readEnvFile reads NAME=value lines (a shell could source the file too).
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path) //nolint:gosec // G304: the dev.env found above
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	vars := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok {
			continue
		}
		vars[strings.TrimSpace(name)] = strings.Trim(strings.TrimSpace(value), `"'`)
	}
	return vars, sc.Err()
}
