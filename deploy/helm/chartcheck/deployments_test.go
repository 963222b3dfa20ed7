package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const baseDeployments = `
apiVersion: v1
kind: Service
metadata: {name: gateway}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: gateway}
spec:
  template:
    spec:
      containers:
        - name: gateway
          image: registry.example.com/hookline/gateway:0.1.0
          ports: [{name: http, containerPort: 8080}]
          env:
            - {name: A, value: "1"}
            - {name: B, value: "2"}
          readinessProbe: {httpGet: {path: /readyz, port: http}, periodSeconds: 5}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: billing}
spec:
  template:
    spec:
      containers:
        - name: billing
          image: registry.example.com/hookline/billing:0.1.0
`

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDeploymentsAlike(t *testing.T) {
	a := writeTemp(t, "a.yaml", baseDeployments)
	// Key order and document order do not matter.
	b := writeTemp(t, "b.yaml", strings.Replace(baseDeployments, "ports: [{name: http, containerPort: 8080}]", "ports: [{containerPort: 8080, name: http}]", 1))
	var out strings.Builder
	if err := run(t.Context(), []string{"deployments", a, b}, &out); err != nil {
		t.Fatalf("same Deployments reported different: %v", err)
	}
	if !strings.Contains(out.String(), "the same 2 Deployments (billing, gateway)") {
		t.Fatalf("output %q", out.String())
	}
}

func TestDeploymentsDiffer(t *testing.T) {
	cases := []struct {
		name, old, new, want string
	}{
		{"image", "gateway:0.1.0", "gateway:0.2.0", "gateway.containers[gateway].image: registry.example.com/hookline/gateway:0.1.0 != registry.example.com/hookline/gateway:0.2.0"},
		{"port", "containerPort: 8080", "containerPort: 8081", "gateway.containers[gateway].ports[http].containerPort: 8080 != 8081"},
		{"probe", "periodSeconds: 5", "periodSeconds: 10", "gateway.containers[gateway].readinessProbe.periodSeconds: 5 != 10"},
		{"added env", `- {name: B, value: "2"}`, `- {name: B, value: "2"}` + "\n            - {name: C, value: \"3\"}", "gateway.containers[gateway].env[C]: (absent) != {name: C; value: \"3\"}"},
		{"env order", "- {name: A, value: \"1\"}\n            - {name: B, value: \"2\"}", "- {name: B, value: \"2\"}\n            - {name: A, value: \"1\"}", "gateway.containers[gateway].env: same entries in another order"},
		{"renamed", "metadata: {name: billing}", "metadata: {name: billing2}", "Deployment billing: missing from the second render"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			changed := strings.Replace(baseDeployments, c.old, c.new, 1)
			if changed == baseDeployments {
				t.Fatalf("the case changes nothing")
			}
			a := writeTemp(t, "a.yaml", baseDeployments)
			b := writeTemp(t, "b.yaml", changed)
			err := run(t.Context(), []string{"deployments", a, b}, &strings.Builder{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to name %q", err, c.want)
			}
		})
	}
}
