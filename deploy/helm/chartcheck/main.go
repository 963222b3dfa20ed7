// Command chartcheck backs scripts/chart-check.sh, the offline checks of the
// Helm chart deploy/helm/hookline:
//
//	chartcheck schemas -out DIR
//	    writes strict, self-contained JSON schemas for kubeconform
//	    ({{ .ResourceKind }}{{ .KindSuffix }}.json) of every kind of
//	    Kubernetes 1.30 (the OpenAPI document of the Go module
//	    k8s.io/kubernetes) and of the CRDs the chart uses: KEDA's
//	    ScaledObject (module github.com/kedacore/keda/v2) and
//	    prometheus-operator's ServiceMonitor and PrometheusRule (module
//	    github.com/prometheus-operator/prometheus-operator). The modules come
//	    from the Go module proxy through `go mod download`.
//	chartcheck deployments KUSTOMIZE.yaml HELM.yaml
//	    fails unless both renders hold the same Deployments with the same pod
//	    specs (containers, images, args, ports, probes, env, volumes, ...).
//	chartcheck metrics -repo ROOT RENDERED.yaml
//	    fails unless every expression of a PrometheusRule parses as PromQL
//	    and every series it names is one the code under ROOT declares.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "chartcheck:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage: chartcheck schemas -out DIR | deployments KUSTOMIZE.yaml HELM.yaml | metrics -repo ROOT RENDERED.yaml")

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "schemas":
		return runSchemas(ctx, args[1:], stdout)
	case "deployments":
		return runDeployments(args[1:], stdout)
	case "metrics":
		return runMetrics(args[1:], stdout)
	}
	return errUsage
}
