// Command plainforwarder is the floor of a webhook dispatcher, for
// comparison with the webhooks service in bench/run.sh: a JetStream
// consumer of clips.project.ready.v1 that POSTs each event's envelope to
// one URL and acks it once answered 2xx. No endpoints, signatures,
// database, ordering across restarts or retry schedule: what is left is
// the NATS hop and the HTTP hop.
//
//	plainforwarder -nats nats://127.0.0.1:4233 -namespace NS -target http://127.0.0.1:18099/hook
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/platform/messaging"
)

func main() {
	platform.Main("plainforwarder", func(ctx context.Context, _ func(string) string, stdout io.Writer) error {
		if err := run(ctx, os.Args[1:], stdout); !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	})
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("plainforwarder", flag.ContinueOnError)
	natsURL := fs.String("nats", "nats://127.0.0.1:4233", "NATS URL")
	ns := fs.String("namespace", "bench", "NATS namespace the events are published in")
	target := fs.String("target", "http://127.0.0.1:18099/hook", "where every event is POSTed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	nc, err := messaging.Connect(ctx, *natsURL, "plainforwarder")
	if err != nil {
		return err
	}
	defer nc.Close()
	bus, err := messaging.NewBus(nc, *ns)
	if err != nil {
		return err
	}
	if err := bus.EnsureStreams(ctx); err != nil {
		return err
	}
	// Only what is published from now on, acked one by one.
	cons, err := bus.JS.CreateOrUpdateConsumer(ctx, bus.StreamName(events.StreamClips), jetstream.ConsumerConfig{
		FilterSubject: bus.Subject(events.ClipsProjectReady), DeliverPolicy: jetstream.DeliverNewPolicy,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second,
	})
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 10 * time.Second}
	cc, err := cons.Consume(func(m jetstream.Msg) {
		if post(ctx, client, *target, m.Data()) {
			_ = m.Ack()
			return
		}
		_ = m.Nak()
	})
	if err != nil {
		return err
	}
	defer cc.Stop()
	if _, err := fmt.Fprintln(stdout, "forwarding to", *target); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// post sends body to target and reports whether it was answered 2xx.
func post(ctx context.Context, client *http.Client, target string, body []byte) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode/100 == 2
}
