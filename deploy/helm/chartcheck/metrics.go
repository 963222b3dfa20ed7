package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"
)

// Instrument declarations in the code, as this repository writes them:
// counters through telemetry.NewCounter(scope, "name", ...), duration
// histograms (unit s) through pkg/platform/messaging's histogram("name", ...),
// pkg/platform/telemetry's Float64Histogram("name", ... WithUnit("s")) and
// telemetry.NewHistogram(scope, "name", ...), and gauges through
// Int64ObservableGauge("name", ...) and telemetry.NewGauge(scope, "name", ...).
var (
	counterDecl   = regexp.MustCompile(`NewCounter\(\s*\w+\s*,\s*"([a-z0-9_.]+)"`)
	histogramDecl = regexp.MustCompile(`(?:\bhistogram\(|Float64Histogram\(|NewHistogram\(\s*\w+\s*,)\s*"([a-z0-9_.]+)"`)
	gaugeDecl     = regexp.MustCompile(`(?:Int64ObservableGauge\(|NewGauge\(\s*\w+\s*,)\s*"([a-z0-9_.]+)"`)
)

// runMetrics checks that the alerts of a render name only exported series.
func runMetrics(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("metrics", flag.ContinueOnError)
	repo := fset.String("repo", ".", "repository root whose Go code declares the metrics")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() != 1 {
		return errUsage
	}
	exported, err := exportedMetrics(*repo)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(fset.Arg(0))
	if err != nil {
		return err
	}
	used, err := ruleMetrics(data)
	if err != nil {
		return err
	}
	if len(used) == 0 {
		return fmt.Errorf("%s: no PrometheusRule with expressions", fset.Arg(0))
	}
	var unknown []string
	for _, m := range used {
		if !exported[m] {
			unknown = append(unknown, m)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("the alerts name series no code exports: %s", strings.Join(unknown, ", "))
	}
	_, err = fmt.Fprintf(stdout, "chartcheck: the alerts use %d series, all exported (%s)\n", len(used), strings.Join(used, ", "))
	return err
}

// exportedMetrics returns the Prometheus names of the instruments declared
// in the non-test Go files under root, as pkg/platform/telemetry exports them
// (dots to underscores; counters get _total; second histograms get
// _seconds and their _bucket, _count and _sum series).
func exportedMetrics(root string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path) //nolint:gosec // G304: a Go file under the repository root
		if err != nil {
			return err
		}
		for _, m := range counterDecl.FindAllSubmatch(src, -1) {
			out[promName(string(m[1]))+"_total"] = true
		}
		for _, m := range gaugeDecl.FindAllSubmatch(src, -1) {
			out[promName(string(m[1]))] = true
		}
		for _, m := range histogramDecl.FindAllSubmatch(src, -1) {
			base := promName(string(m[1])) + "_seconds"
			for _, suffix := range []string{"", "_bucket", "_count", "_sum"} {
				out[base+suffix] = true
			}
		}
		return nil
	})
	if len(out) == 0 && err == nil {
		err = fmt.Errorf("%s: no metric declarations found", root)
	}
	return out, err
}

func promName(otelName string) string {
	return strings.ReplaceAll(otelName, ".", "_")
}

// ruleMetrics returns the series named by the expressions of the
// PrometheusRules in a multi-document YAML stream, sorted, once each. An
// expression PromQL cannot parse is an error.
func ruleMetrics(data []byte) ([]string, error) {
	docs, err := splitYAML(data)
	if err != nil {
		return nil, err
	}
	var used []string
	for _, d := range docs {
		if d["kind"] != "PrometheusRule" {
			continue
		}
		groups, _ := dig(d, "spec", "groups").([]any)
		for _, g := range groups {
			rules, _ := dig(g, "rules").([]any)
			for _, r := range rules {
				expr, _ := dig(r, "expr").(string)
				parsed, err := parser.ParseExpr(expr)
				if err != nil {
					return nil, fmt.Errorf("rule %v: %w", dig(r, "alert"), err)
				}
				parser.Inspect(parsed, func(n parser.Node, _ []parser.Node) error {
					if vs, ok := n.(*parser.VectorSelector); ok && !slices.Contains(used, vs.Name) {
						used = append(used, vs.Name)
					}
					return nil
				})
			}
		}
	}
	slices.Sort(used)
	return used, nil
}
