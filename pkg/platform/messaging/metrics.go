package messaging

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"hookline.dev/pkg/platform/telemetry"
)

// meterScope names the instruments of this package.
const meterScope = "hookline.dev/pkg/platform/messaging"

// Attribute keys of the consumer metrics; the consumer is its durable name.
const (
	attrConsumer = "messaging.consumer.group.name"
	attrSubject  = "messaging.destination.name"
	attrOutcome  = "outcome"
	attrReason   = "reason"
)

// The package's instruments. They are package variables created through
// the global meter: every service exposes them once telemetry.Setup has
// installed the provider, without wiring.
var (
	// processDuration counts and times every handled delivery by consumer,
	// subject and outcome (ok or error): throughput, failures and latency.
	processDuration = histogram("messaging.process.duration", "Duration of handling one delivered message.")
	redeliveries    = telemetry.NewCounter(meterScope, "hookline.messaging.redeliveries", "Deliveries that were not the first of their message.")
	deadLetters     = telemetry.NewCounter(meterScope, "hookline.messaging.dead_letters", "Messages sent to the dead-letter subject.")
	// relayLag is an outbox row's age when JetStream acknowledged it: how
	// far events trail the transactions that wrote them.
	relayLag        = histogram("hookline.messaging.relay.lag", "Age of an outbox row when its publication was acknowledged.")
	relayPublished  = telemetry.NewCounter(meterScope, "hookline.messaging.relay.published", "Outbox rows published and acknowledged.")
	relayDuplicates = telemetry.NewCounter(meterScope, "hookline.messaging.relay.duplicates", "Relay publications the stream recognised as duplicates (a re-publish after a crash between publish and delete).")
	relayForced     = telemetry.NewCounter(meterScope, "hookline.messaging.relay.forced", "Outbox rows published out of txid order because an older transaction stayed open longer than Relay.MaxHold.")
)

// backlog is each running consumer's last known backlog, read from the
// server every backlogEvery: what waits to be delivered (pending) and what
// is delivered but not yet acknowledged (in flight). A queue-depth
// autoscaler (KEDA) reads the same numbers from the server.
var backlog = struct {
	sync.Mutex
	byConsumer map[string][2]int64
}{byConsumer: map[string][2]int64{}}

// backlogEvery is how often a consumer's backlog is read from the server.
const backlogEvery = 10 * time.Second

func init() {
	_, err := otel.Meter(meterScope).Int64ObservableGauge("hookline.messaging.consumer.backlog",
		metric.WithDescription("Messages of a durable consumer waiting to be delivered (state=pending) or delivered and not yet acknowledged (state=in_flight), as last read from the server."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			backlog.Lock()
			defer backlog.Unlock()
			for consumer, n := range backlog.byConsumer {
				o.Observe(n[0], metric.WithAttributes(attribute.String(attrConsumer, consumer), attribute.String("state", "pending")))
				o.Observe(n[1], metric.WithAttributes(attribute.String(attrConsumer, consumer), attribute.String("state", "in_flight")))
			}
			return nil
		}))
	if err != nil {
		otel.Handle(err)
	}
}

// setBacklog records a consumer's backlog; forgetBacklog removes it when
// the consumer stops.
func setBacklog(consumer string, pending, inFlight int64) {
	backlog.Lock()
	backlog.byConsumer[consumer] = [2]int64{pending, inFlight}
	backlog.Unlock()
}

func forgetBacklog(consumer string) {
	backlog.Lock()
	delete(backlog.byConsumer, consumer)
	backlog.Unlock()
}

func histogram(name, description string) metric.Float64Histogram {
	h, err := otel.Meter(meterScope).Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(description),
		metric.WithExplicitBucketBoundaries(telemetry.DurationBuckets...))
	if err != nil {
		otel.Handle(err)
		return noop.Float64Histogram{}
	}
	return h
}

// recordProcessed records one handled delivery.
func recordProcessed(ctx context.Context, consumer, subject string, took time.Duration, failed bool) {
	outcome := "ok"
	if failed {
		outcome = "error"
	}
	processDuration.Record(ctx, took.Seconds(), metric.WithAttributes(
		attribute.String(attrConsumer, consumer), attribute.String(attrSubject, subject), attribute.String(attrOutcome, outcome)))
}
