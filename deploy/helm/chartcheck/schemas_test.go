package main

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A cut-down swagger.json: a kind reaching an object, an IntOrString and a
// Quantity through $refs, and a free-form object.
const swagger = `{"definitions": {
  "io.k8s.api.apps.v1.Widget": {
    "type": "object",
    "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Widget"}],
    "properties": {
      "apiVersion": {"type": "string"},
      "kind": {"type": "string"},
      "spec": {"$ref": "#/definitions/io.k8s.api.apps.v1.WidgetSpec"}
    }
  },
  "io.k8s.api.apps.v1.WidgetSpec": {
    "type": "object",
    "description": "dropped",
    "properties": {
      "port": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
      "cpu": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}},
      "raw": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.runtime.RawExtension"}
    }
  },
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"type": "string", "format": "int-or-string"},
  "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"},
  "io.k8s.apimachinery.pkg.runtime.RawExtension": {"type": "object"},
  "io.k8s.api.core.v1.Unused": {"type": "object", "properties": {"x": {"type": "string"}}}
}}`

const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: keda.sh
  names: {kind: ScaledObject}
  versions:
    - name: v1alpha1
      served: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            metadata: {type: object}
            spec:
              type: object
              required: [scaleTargetRef]
              properties:
                scaleTargetRef:
                  type: object
                  properties: {name: {type: string}}
                minReplicaCount: {type: integer, nullable: true}
                target: {x-kubernetes-int-or-string: true}
                extra: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {a: {type: string}}}
`

func compile(t *testing.T, schema any) *jsonschema.Schema {
	t.Helper()
	// Through JSON, as written to disc and read by kubeconform.
	data, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	if err := c.AddResource("s.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func check(t *testing.T, s *jsonschema.Schema, doc string, valid bool) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); (err == nil) != valid {
		t.Errorf("%s: valid=%v, want %v (%v)", doc, err == nil, valid, err)
	}
}

func TestOpenAPISchemas(t *testing.T) {
	out, err := openAPISchemas([]byte(swagger))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out["widget-apps-v1"] == nil {
		t.Fatalf("schemas %v, want only widget-apps-v1", slices.Collect(maps.Keys(out)))
	}
	defs := out["widget-apps-v1"].(map[string]any)["definitions"].(map[string]any)
	if _, ok := defs["io.k8s.api.core.v1.Unused"]; ok {
		t.Errorf("an unreachable definition was included")
	}
	if strings.Contains(string(must(json.Marshal(out))), "dropped") {
		t.Errorf("descriptions were kept")
	}
	s := compile(t, out["widget-apps-v1"])
	check(t, s, `{"apiVersion":"apps/v1","kind":"Widget","spec":{"port":8080,"cpu":"250m","labels":{"a":"b"},"raw":{"any":1}}}`, true)
	check(t, s, `{"spec":{"port":"http","cpu":2}}`, true)
	check(t, s, `{"spec":{"port":1.5}}`, false)       // neither string nor integer
	check(t, s, `{"spec":{"prot":8080}}`, false)      // a typo: unknown field
	check(t, s, `{"spce":{}}`, false)                 // unknown at the top
	check(t, s, `{"spec":{"labels":{"a":1}}}`, false) // map values typed
}

func TestCRDSchemas(t *testing.T) {
	out, err := crdSchemas([]byte(crd))
	if err != nil {
		t.Fatal(err)
	}
	s := compile(t, out["scaledobject-keda-v1alpha1"])
	check(t, s, `{"metadata":{"name":"w","labels":{"a":"b"}},"spec":{"scaleTargetRef":{"name":"w"},"minReplicaCount":null,"target":"50%","extra":{"b":1}}}`, true)
	check(t, s, `{"spec":{"scaleTargetRef":{"name":"w"},"target":5}}`, true)
	check(t, s, `{"spec":{}}`, false)                                              // required
	check(t, s, `{"spec":{"scaleTargetRef":{"name":"w"},"minReplicas":1}}`, false) // unknown field
	check(t, s, `{"spec":{"scaleTargetRef":{"name":"w","kind":"x"}}}`, false)      // strict nested
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
