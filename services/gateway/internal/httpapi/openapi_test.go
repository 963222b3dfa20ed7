package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"hookline.dev/services/gateway/internal/openapi"
)

// TestOpenAPIDocumentsEveryRoute walks the gateway's real router and the
// OpenAPI document and requires the same operations in both, so an endpoint
// cannot be added (or removed) without its documentation. Proxied paths
// must also name the service the routing table sends them to.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	routed := map[string]bool{}
	h := NewHandler(Config{}, "")
	err = chi.Walk(h.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		// HEAD and OPTIONS follow from GET and the router; the document
		// describes them once, in its introduction.
		if method != http.MethodHead && method != http.MethodOptions {
			routed[method+" "+strings.TrimSuffix(route, "/")] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Spec.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	for op := range routed {
		if !documented[op] {
			t.Errorf("%s is served but not in the OpenAPI document (services/gateway/internal/openapi/openapi.yaml)", op)
		}
	}
	for op := range documented {
		if !routed[op] {
			t.Errorf("%s is in the OpenAPI document but the gateway does not serve it", op)
		}
	}
	if len(routed) < len(Routes) {
		t.Fatalf("walked %d routes, fewer than the routing table's %d rows", len(routed), len(Routes))
	}

	for _, rt := range Routes {
		item := doc.Spec.Paths.Value(Prefix + rt.Pattern)
		if item == nil {
			continue // reported above
		}
		if got := item.Extensions["x-hookline-service"]; got != rt.Service {
			t.Errorf("%s: x-hookline-service %v, routed to %s", rt.Pattern, got, rt.Service)
		}
		for method := range item.Operations() {
			if !slices.Contains(rt.Methods, method) {
				t.Errorf("%s %s documented, not in the routing table", method, rt.Pattern)
			}
		}
	}
}
