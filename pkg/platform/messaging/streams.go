package messaging

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
)

// duplicateWindow is how long JetStream remembers a Nats-Msg-Id; the relay
// relies on it to publish a retried outbox row once.
const duplicateWindow = 2 * time.Minute

// StreamSettings are what configuration declares for a stream. A nil field
// is not declared: a new stream takes the default of events.Streams, and an
// existing stream keeps the server's value (an operator's change survives).
type StreamSettings struct {
	Replicas  *int
	Retention *events.Retention
	MaxAge    *time.Duration
	Storage   *events.Storage
}

// StreamConfig is HOOKLINE_STREAMS parsed: declared settings per stream
// name; the name "*" declares a setting for every stream.
type StreamConfig map[string]StreamSettings

// AllStreams is the StreamConfig key that applies to every stream.
const AllStreams = "*"

// ParseStreamConfig reads `NAME.key=value` items separated by commas, e.g.
// `*.replicas=3,DLQ.max_age=720h,CLIPS_JOBS.storage=file`. Keys: replicas
// (1..5), retention (limits | workqueue), max_age (a Go duration; 0 keeps
// messages forever), storage (file | memory). NAME is a stream of
// events.Streams or "*".
func ParseStreamConfig(s string) (StreamConfig, error) {
	cfg := StreamConfig{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		target, value, ok := strings.Cut(item, "=")
		name, key, ok2 := strings.Cut(target, ".")
		if !ok || !ok2 {
			return nil, fmt.Errorf("stream setting %q: want NAME.key=value", item)
		}
		name, key, value = strings.TrimSpace(name), strings.TrimSpace(key), strings.TrimSpace(value)
		if name != AllStreams && !slices.ContainsFunc(events.Streams, func(st events.Stream) bool { return st.Name == name }) {
			return nil, fmt.Errorf("stream setting %q: unknown stream %q", item, name)
		}
		set := cfg[name]
		switch key {
		case "replicas":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > 5 {
				return nil, fmt.Errorf("stream setting %q: replicas must be 1..5", item)
			}
			set.Replicas = &n
		case "retention":
			r := events.Retention(value)
			if r != events.RetentionLimits && r != events.RetentionWorkQueue {
				return nil, fmt.Errorf("stream setting %q: retention must be limits or workqueue", item)
			}
			set.Retention = &r
		case "max_age":
			d, err := time.ParseDuration(value)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("stream setting %q: max_age must be a duration >= 0", item)
			}
			set.MaxAge = &d
		case "storage":
			st := events.Storage(value)
			if st != events.StorageFile && st != events.StorageMemory {
				return nil, fmt.Errorf("stream setting %q: storage must be file or memory", item)
			}
			set.Storage = &st
		default:
			return nil, fmt.Errorf("stream setting %q: unknown key %q (replicas, retention, max_age, storage)", item, key)
		}
		cfg[name] = set
	}
	return cfg, nil
}

// For returns what is declared for the stream name: its own settings over
// those of "*".
func (c StreamConfig) For(name string) StreamSettings {
	s, all := c[name], c[AllStreams]
	if s.Replicas == nil {
		s.Replicas = all.Replicas
	}
	if s.Retention == nil {
		s.Retention = all.Retention
	}
	if s.MaxAge == nil {
		s.MaxAge = all.MaxAge
	}
	if s.Storage == nil {
		s.Storage = all.Storage
	}
	return s
}

// apply writes the declared settings into cfg and reports whether that
// changed it.
func (s StreamSettings) apply(cfg *jetstream.StreamConfig) (changed bool) {
	if s.Replicas != nil && cfg.Replicas != *s.Replicas {
		cfg.Replicas, changed = *s.Replicas, true
	}
	if s.Retention != nil {
		if r := retentionPolicy(*s.Retention); cfg.Retention != r {
			cfg.Retention, changed = r, true
		}
	}
	if s.MaxAge != nil && cfg.MaxAge != *s.MaxAge {
		cfg.MaxAge, changed = *s.MaxAge, true
	}
	if s.Storage != nil {
		if st := storageType(*s.Storage); cfg.Storage != st {
			cfg.Storage, changed = st, true
		}
	}
	return changed
}

func retentionPolicy(r events.Retention) jetstream.RetentionPolicy {
	if r == events.RetentionWorkQueue {
		return jetstream.WorkQueuePolicy
	}
	return jetstream.LimitsPolicy
}

func storageType(s events.Storage) jetstream.StorageType {
	if s == events.StorageMemory {
		return jetstream.MemoryStorage
	}
	return jetstream.FileStorage
}

// EnsureStreams creates every stream of events.Streams that is missing in
// the bus's namespace, with the defaults of events.Streams under the
// settings b.Streams declares. An existing stream is updated only where it
// differs from its subjects (code decides them) or from a declared setting:
// what configuration leaves unset keeps the server's value, so an operator's
// change (replicas, limits) survives every start. It is idempotent and safe
// to run from every replica at start-up. Storage and a change to or from
// work-queue retention cannot change on a live stream; the server's refusal
// is returned.
func (b *Bus) EnsureStreams(ctx context.Context) error {
	for _, s := range events.Streams {
		if err := b.ensureStream(ctx, s, b.Streams.For(s.Name)); err != nil {
			return fmt.Errorf("messaging: ensure stream %s: %w", b.StreamName(s.Name), err)
		}
	}
	return nil
}

func (b *Bus) ensureStream(ctx context.Context, s events.Stream, declared StreamSettings) error {
	subjects := make([]string, len(s.Subjects))
	for i, subj := range s.Subjects {
		subjects[i] = b.Subject(subj)
	}
	name := b.StreamName(s.Name)
	// Two replicas starting together may both find the stream missing; the
	// loser of the create updates instead.
	for range 2 {
		st, err := b.JS.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			cfg := jetstream.StreamConfig{
				Name:       name,
				Subjects:   subjects,
				Retention:  retentionPolicy(s.Retention),
				Storage:    jetstream.FileStorage,
				Discard:    jetstream.DiscardOld,
				MaxAge:     s.MaxAge,
				Duplicates: duplicateWindow,
				Replicas:   1,
			}
			declared.apply(&cfg)
			_, err = b.JS.CreateStream(ctx, cfg)
			if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				continue
			}
			return err
		}
		if err != nil {
			return err
		}
		cfg := st.CachedInfo().Config
		changed := !slices.Equal(cfg.Subjects, subjects)
		cfg.Subjects = subjects
		if declared.apply(&cfg) || changed {
			_, err = b.JS.UpdateStream(ctx, cfg)
		}
		return err
	}
	return errors.New("created and deleted concurrently")
}
