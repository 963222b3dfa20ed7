package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// The schemas' sources: exact module versions served by the Go module proxy
// (Apache-2.0 licensed, each module's LICENSE file).
const (
	// kubernetesModule holds api/openapi-spec/swagger.json of Kubernetes 1.30.
	kubernetesModule = "k8s.io/kubernetes@v1.30.14"
	// kedaModule holds the ScaledObject CRD of KEDA 2.17 (Kubernetes 1.30–1.32).
	kedaModule = "github.com/kedacore/keda/v2@v2.17.2"
	// promOperatorModule holds the monitoring.coreos.com CRDs.
	promOperatorModule = "github.com/prometheus-operator/prometheus-operator@v0.89.0"
)

// schemaSources name the files read from each module.
var schemaSources = []struct {
	module string
	files  []string
	crd    bool
}{
	{kubernetesModule, []string{"api/openapi-spec/swagger.json"}, false},
	{kedaModule, []string{"config/crd/bases/keda.sh_scaledobjects.yaml"}, true},
	{promOperatorModule, []string{
		"example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml",
		"example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml",
	}, true},
}

func runSchemas(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("schemas", flag.ContinueOnError)
	out := fs.String("out", "", "directory to write the schemas to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errUsage
	}
	if err := os.MkdirAll(*out, 0o750); err != nil {
		return err
	}
	n := 0
	for _, src := range schemaSources {
		dir, err := moduleDir(ctx, src.module)
		if err != nil {
			return err
		}
		for _, f := range src.files {
			data, err := os.ReadFile(filepath.Join(dir, f)) //nolint:gosec // G304: a file of a module this tool names
			if err != nil {
				return err
			}
			var schemas map[string]any
			if src.crd {
				schemas, err = crdSchemas(data)
			} else {
				schemas, err = openAPISchemas(data)
			}
			if err != nil {
				return fmt.Errorf("%s %s: %w", src.module, f, err)
			}
			if err := writeSchemas(*out, schemas); err != nil {
				return err
			}
			n += len(schemas)
		}
	}
	_, err := fmt.Fprintf(stdout, "chartcheck: %d schemas in %s\n", n, *out)
	return err
}

// moduleDir downloads module@version through the Go module proxy (or finds
// it in the module cache) and returns its directory.
func moduleDir(ctx context.Context, module string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module) //nolint:gosec // G204: module is one of the constants above
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr != nil || info.Error != "" || err != nil {
		return "", fmt.Errorf("go mod download %s: %w %s %s", module, errors.Join(err, jerr), info.Error, stderr.String())
	}
	return info.Dir, nil
}

// writeSchemas writes each schema as <name>.json.
func writeSchemas(dir string, schemas map[string]any) error {
	for name, s := range schemas {
		data, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// schemaName is kubeconform's file name for a kind:
// {{ .ResourceKind }}{{ .KindSuffix }}, e.g. deployment-apps-v1,
// networkpolicy-networking-v1, service-v1.
func schemaName(group, version, kind string) string {
	name := strings.ToLower(kind)
	if group != "" {
		name += "-" + strings.ToLower(strings.Split(group, ".")[0])
	}
	return name + "-" + strings.ToLower(version)
}

// openAPISchemas turns an OpenAPI v2 document (Kubernetes' swagger.json)
// into one self-contained schema per group, version and kind: the kind's
// definition with the definitions it reaches under "definitions".
func openAPISchemas(data []byte) (map[string]any, error) {
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	defs := make(map[string]any, len(doc.Definitions))
	for name, d := range doc.Definitions {
		defs[name] = strictSchema(d)
	}
	// Two kinds that API machinery serialises as either a string or a number.
	defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = intOrString()
	defs["io.k8s.apimachinery.pkg.api.resource.Quantity"] = map[string]any{
		"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}},
	}
	out := map[string]any{}
	for name, d := range doc.Definitions {
		gvks, _ := d["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk, _ := g.(map[string]any)
			group, _ := gvk["group"].(string)
			version, _ := gvk["version"].(string)
			kind, _ := gvk["kind"].(string)
			if version == "" || kind == "" {
				continue
			}
			root := copyMap(defs[name].(map[string]any))
			reached := map[string]any{}
			collectRefs(root, defs, reached)
			if len(reached) > 0 {
				root["definitions"] = reached
			}
			out[schemaName(group, version, kind)] = root
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no definition carries x-kubernetes-group-version-kind")
	}
	return out, nil
}

// collectRefs adds to reached every definition node refers to, transitively.
func collectRefs(node any, defs, reached map[string]any) {
	switch n := node.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/definitions/")
			if _, done := reached[name]; !done {
				d, ok := defs[name]
				if !ok {
					d = map[string]any{} // dangling: accept anything rather than fail compilation
				}
				reached[name] = d
				collectRefs(d, defs, reached)
			}
		}
		for k, v := range n {
			if k != "definitions" {
				collectRefs(v, defs, reached)
			}
		}
	case []any:
		for _, v := range n {
			collectRefs(v, defs, reached)
		}
	}
}

// crdSchemas turns a CustomResourceDefinition into one schema per served
// version.
func crdSchemas(data []byte) (map[string]any, error) {
	var crd struct {
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Kind string `json:"kind"`
			} `json:"names"`
			Versions []struct {
				Name   string `json:"name"`
				Served bool   `json:"served"`
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, v := range crd.Spec.Versions {
		if !v.Served || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		out[schemaName(crd.Spec.Group, v.Name, crd.Spec.Names.Kind)] = strictSchema(v.Schema.OpenAPIV3Schema)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no served version with a schema")
	}
	return out, nil
}

// schemaKeys are the keywords whose values are schemas, and schemaMapKeys
// those whose values map names to schemas; strictSchema descends into
// these only (an enum or a default is data, not a schema).
var (
	schemaKeys    = []string{"items", "additionalProperties", "not"}
	schemaMapKeys = []string{"properties", "patternProperties"}
	schemaListKey = []string{"allOf", "anyOf", "oneOf"}
)

// strictSchema returns a copy of an OpenAPI schema as a JSON schema that
// the API server's own checks would match: an object with declared
// properties takes no others (unless it preserves unknown fields, as the
// server does then), int-or-string takes either, nullable takes null, and
// descriptions are dropped.
func strictSchema(node map[string]any) map[string]any {
	s := map[string]any{}
	for k, v := range node {
		switch {
		case k == "description" || strings.HasPrefix(k, "x-kubernetes-") || k == "nullable":
			continue
		case slices.Contains(schemaMapKeys, k):
			props := map[string]any{}
			m, _ := v.(map[string]any)
			for name, p := range m {
				if ps, ok := p.(map[string]any); ok {
					props[name] = strictSchema(ps)
				}
			}
			s[k] = props
		case slices.Contains(schemaKeys, k):
			if m, ok := v.(map[string]any); ok {
				s[k] = strictSchema(m)
			} else {
				s[k] = v
			}
		case slices.Contains(schemaListKey, k):
			list, _ := v.([]any)
			var out []any
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					out = append(out, strictSchema(m))
				}
			}
			s[k] = out
		default:
			s[k] = v
		}
	}
	if node["x-kubernetes-int-or-string"] == true || node["format"] == "int-or-string" {
		delete(s, "type")
		delete(s, "format")
		for k, v := range intOrString() {
			s[k] = v
		}
	}
	if t, ok := s["type"].(string); ok && node["nullable"] == true {
		s["type"] = []any{t, "null"}
	}
	_, hasProps := s["properties"]
	_, hasAdditional := s["additionalProperties"]
	if hasProps && !hasAdditional && node["x-kubernetes-preserve-unknown-fields"] != true {
		s["additionalProperties"] = false
	}
	return s
}

func intOrString() map[string]any {
	return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
}

func copyMap(m map[string]any) map[string]any {
	return maps.Clone(m)
}
