package pgkit_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
)

// TestQuerySpans: a query inside a span gets a child span named after its
// statement, a failed one an error status, a batch one span; a query
// outside any span (background polling) gets none.
func TestQuerySpans(t *testing.T) {
	prev := otel.GetTracerProvider()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); _ = tp.Shutdown(context.Background()) })

	schema := testkit.Schema(t, "pgtrace")
	pool, err := pgkit.Connect(t.Context(), testkit.DatabaseURL(t), schema, pgkit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(t.Context(), `CREATE TABLE t (n int)`); err != nil { // no span: no parent
		t.Fatal(err)
	}
	before := len(rec.Ended())

	ctx, parent := tp.Tracer("test").Start(t.Context(), "request")
	if _, err := pool.Exec(ctx, "INSERT INTO t VALUES ($1), ($2)", 1, 2); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, "\n\t  select count(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("count %d, %v", n, err)
	}
	if _, err := pool.Exec(ctx, "SELECT * FROM no_such_table"); err == nil {
		t.Fatal("query of a missing table succeeded")
	}
	b := &pgx.Batch{}
	b.Queue("UPDATE t SET n = n + 1")
	b.Queue("DELETE FROM t WHERE n > 2")
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	parent.End()

	var got []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended()[before:] {
		if s.Name() != "request" {
			got = append(got, s)
		}
	}
	want := []struct {
		name   string
		failed bool
	}{{"INSERT", false}, {"SELECT", false}, {"SELECT", true}, {"BATCH", false}}
	if len(got) != len(want) {
		names := []string{}
		for _, s := range got {
			names = append(names, s.Name())
		}
		t.Fatalf("query spans %v, want %v", names, want)
	}
	for i, s := range got {
		if s.Name() != want[i].name || (s.Status().Code.String() == "Error") != want[i].failed {
			t.Errorf("span %d: %s status %v, want %s failed=%v", i, s.Name(), s.Status(), want[i].name, want[i].failed)
		}
		if s.Parent().SpanID() != parent.SpanContext().SpanID() || s.SpanKind() != trace.SpanKindClient {
			t.Errorf("span %d %s: parent %s, kind %v", i, s.Name(), s.Parent().SpanID(), s.SpanKind())
		}
	}
	attrs := map[string]string{}
	for _, kv := range got[0].Attributes() {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	if attrs["db.query.text"] != "INSERT INTO t VALUES ($1), ($2)" || attrs["db.namespace"] != schema || attrs["db.response.returned_rows"] != "2" {
		t.Errorf("INSERT span attributes %v", attrs)
	}
}
