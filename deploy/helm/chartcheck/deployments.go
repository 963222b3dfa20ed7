package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// runDeployments compares the Deployments of two renders.
func runDeployments(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return errUsage
	}
	want, err := readDeployments(args[0])
	if err != nil {
		return err
	}
	got, err := readDeployments(args[1])
	if err != nil {
		return err
	}
	diffs := compareDeployments(want, got)
	if len(diffs) > 0 {
		return fmt.Errorf("%s and %s render different Deployments:\n  %s", args[0], args[1], strings.Join(diffs, "\n  "))
	}
	names := slices.Sorted(maps.Keys(want))
	_, err = fmt.Fprintf(stdout, "chartcheck: the same %d Deployments (%s)\n", len(names), strings.Join(names, ", "))
	return err
}

// readDeployments returns the pod templates' specs of the Deployments in a
// multi-document YAML file, by name.
func readDeployments(path string) (map[string]any, error) {
	data, err := os.ReadFile(path) //nolint:gosec // G304: a render the caller names
	if err != nil {
		return nil, err
	}
	docs, err := splitYAML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]any{}
	for _, d := range docs {
		if d["kind"] != "Deployment" {
			continue
		}
		name, _ := dig(d, "metadata", "name").(string)
		spec := dig(d, "spec", "template", "spec")
		if name == "" || spec == nil {
			return nil, fmt.Errorf("%s: a Deployment without a name or pod template", path)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%s: Deployment %s twice", path, name)
		}
		out[name] = spec
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no Deployment", path)
	}
	return out, nil
}

// splitYAML parses a multi-document YAML stream into objects, skipping
// empty documents.
func splitYAML(data []byte) ([]map[string]any, error) {
	var out []map[string]any
	for doc := range bytes.SplitSeq(data, []byte("\n---")) {
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, err
		}
		if len(m) > 0 {
			out = append(out, m)
		}
	}
	return out, nil
}

// compareDeployments lists every difference between two sets of pod specs:
// a Deployment missing on either side, or a field path whose values differ.
func compareDeployments(want, got map[string]any) []string {
	var diffs []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("Deployment %s: missing from the second render", name))
			continue
		}
		diffs = append(diffs, diffValues(name, want[name], g)...)
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[name]; !ok {
			diffs = append(diffs, fmt.Sprintf("Deployment %s: only in the second render", name))
		}
	}
	return diffs
}

// diffValues reports the paths under path where a and b differ. Lists of
// named objects (containers, ports, env, volumes) are matched by name, so
// one added entry is reported once rather than shifting the rest.
func diffValues(path string, a, b any) []string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Collect(maps.Keys(av))
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		var diffs []string
		for _, k := range keys {
			diffs = append(diffs, diffValues(path+"."+k, av[k], bv[k])...)
		}
		return diffs
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		if an, bn := byName(av), byName(bv); an != nil && bn != nil {
			var diffs []string
			for _, n := range orderedNames(av, bv) {
				diffs = append(diffs, diffValues(fmt.Sprintf("%s[%s]", path, n), an[n], bn[n])...)
			}
			if len(diffs) == 0 && !sameOrder(av, bv) {
				diffs = append(diffs, path+": same entries in another order")
			}
			return diffs
		}
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{fmt.Sprintf("%s: %s != %s", path, show(a), show(b))}
}

// byName indexes a list whose entries are all objects with distinct names;
// otherwise nil.
func byName(list []any) map[string]any {
	out := map[string]any{}
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil
		}
		n, ok := m["name"].(string)
		if !ok {
			return nil
		}
		if _, dup := out[n]; dup {
			return nil
		}
		out[n] = e
	}
	return out
}

func orderedNames(lists ...[]any) []string {
	var names []string
	for _, l := range lists {
		for _, e := range l {
			n := e.(map[string]any)["name"].(string)
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

func sameOrder(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].(map[string]any)["name"] != b[i].(map[string]any)["name"] {
			return false
		}
	}
	return true
}

func show(v any) string {
	if v == nil {
		return "(absent)"
	}
	data, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSpace(string(data))
	if strings.Contains(s, "\n") {
		return "{" + strings.ReplaceAll(s, "\n", "; ") + "}"
	}
	return s
}

// dig returns the value at a path of object keys, or nil.
func dig(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
