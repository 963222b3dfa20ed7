package pgkit

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the query spans.
const tracerName = "hookline.dev/pkg/platform/pgkit"

// maxQueryText bounds the db.query.text attribute: the statements are our
// own, parameterized (no values in them), but a migration can be long.
const maxQueryText = 2000

// queryTracer is the pools' pgx tracer: a client span per query and per
// batch, child of the span in the query's context. A query whose context
// has no span (the outbox relay's polling, the inbox pruning) gets none:
// those would be root spans by the thousand, each telling nothing.
type queryTracer struct {
	tracer trace.Tracer
	schema string
}

func newQueryTracer(schema string) *queryTracer {
	return &queryTracer{tracer: otel.Tracer(tracerName), schema: schema}
}

var (
	_ pgx.QueryTracer = (*queryTracer)(nil)
	_ pgx.BatchTracer = (*queryTracer)(nil)
)

func (q *queryTracer) start(ctx context.Context, name string, attrs ...attribute.KeyValue) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	attrs = append(attrs, attribute.String("db.system.name", "postgresql"), attribute.String("db.namespace", q.schema))
	ctx, span := q.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return context.WithValue(ctx, querySpanKey{}, span)
}

// querySpanKey marks the span start began, so that end never ends a
// caller's span when start began none.
type querySpanKey struct{}

func (q *queryTracer) end(ctx context.Context, rows int64, err error) {
	span, ok := ctx.Value(querySpanKey{}).(trace.Span)
	if !ok {
		return
	}
	if rows >= 0 {
		span.SetAttributes(attribute.Int64("db.response.returned_rows", rows))
	}
	// No rows is an answer, not a failure.
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// TraceQueryStart starts the span of one query.
func (q *queryTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	op := operation(data.SQL)
	return q.start(ctx, op, attribute.String("db.operation.name", op), attribute.String("db.query.text", truncate(data.SQL)))
}

// TraceQueryEnd ends it.
func (q *queryTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	q.end(ctx, data.CommandTag.RowsAffected(), data.Err)
}

// TraceBatchStart starts the span of a batch.
func (q *queryTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	n := 0
	if data.Batch != nil {
		n = data.Batch.Len()
	}
	return q.start(ctx, "BATCH", attribute.String("db.operation.name", "BATCH"), attribute.Int("db.operation.batch.size", n))
}

// TraceBatchQuery records a failed query of the batch on its span.
func (q *queryTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	if span, ok := ctx.Value(querySpanKey{}).(trace.Span); ok && data.Err != nil && !errors.Is(data.Err, pgx.ErrNoRows) {
		span.RecordError(data.Err, trace.WithAttributes(attribute.String("db.query.text", truncate(data.SQL))))
	}
}

// TraceBatchEnd ends the batch's span.
func (q *queryTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	q.end(ctx, -1, data.Err)
}

// operation is the statement's first keyword (SELECT, INSERT, WITH, …),
// the low-cardinality span name.
func operation(sql string) string {
	sql = strings.TrimSpace(sql)
	for strings.HasPrefix(sql, "--") { // leading comment lines
		_, rest, ok := strings.Cut(sql, "\n")
		if !ok {
			return "SQL"
		}
		sql = strings.TrimSpace(rest)
	}
	words := strings.FieldsFunc(sql, func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '(' || r == ';' })
	if len(words) == 0 || len(words[0]) > 16 {
		return "SQL"
	}
	return strings.ToUpper(words[0])
}

func truncate(s string) string {
	if len(s) <= maxQueryText {
		return s
	}
	return s[:maxQueryText] + "…"
}
