package credits

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/principal"
)

// Migrations holds the reservation journal. Services that use a Client
// apply it after messaging.Migrations (platform.Options.SharedMigrations).
//
//go:embed *.sql
var Migrations embed.FS

// MaxItems bounds the reservations of one request (a render of many clips).
const MaxItems = 100

// Requester makes billing's reserve call; *messaging.Bus implements it.
// Failures to get an answer wrap messaging.ErrUnavailable.
type Requester interface {
	Request(ctx context.Context, subject string, req, reply any) error
}

// Item is one thing a request pays for: one variation, one clip render.
type Item struct {
	Credits      int64
	ResourceType string
	ResourceID   string
}

// Request is a paid operation about to run.
type Request struct {
	OrgID     string
	Operation string
	// Key identifies the client's request across retries; KeyOf derives it
	// from the principal.
	Key   string
	Items []Item
}

// Reservation is what billing holds for one item. The service settles it
// with Complete or Fail.
type Reservation struct {
	ID           string
	OrgID        string
	Operation    string
	Item         int
	Credits      int64
	ResourceType string
	ResourceID   string
}

// Outcome names what happened to a reserve call or a recovered
// reservation, for Config.Observe.
type Outcome string

// Outcomes.
const (
	Reserved            Outcome = "reserved"
	InsufficientCredits Outcome = "insufficient_credits"
	QuotaExceeded       Outcome = "quota_exceeded"
	// Rejected: billing called the request invalid (a caller bug).
	Rejected Outcome = "rejected"
	// Unavailable: nobody answered; billing cannot have applied anything.
	Unavailable Outcome = "unavailable"
	// Uncertain: the answer was late, lost or unreadable, or could not be
	// journaled; billing may hold the reservation, so its failed event is
	// written (at once, or by the recovery pass).
	Uncertain Outcome = "uncertain"
	// InProgress: the same request holds open reservations already.
	InProgress Outcome = "in_progress"
	// RecoveredCompleted and RecoveredFailed are decided by Recover.
	RecoveredCompleted Outcome = "recovered_completed"
	RecoveredFailed    Outcome = "recovered_failed"
)

// Errors of Reserve besides the apierr values.
var (
	// ErrSettled: the reservation is already terminal (failed by a timeout
	// or the recovery pass, or settled before), so the outcome was not
	// recorded. Billing keeps the first terminal event, and so does the
	// journal: a service getting this from Complete must not deliver the
	// work as paid.
	ErrSettled = errors.New("credits: reservation already settled")
	// ErrUnknown: the reservation is not in this service's journal.
	ErrUnknown = errors.New("credits: unknown reservation")
)

// Config configures a Client.
type Config struct {
	// Billing answers events.BillingReserveRPC (a *messaging.Bus).
	Billing Requester
	// Pool is the service's pool, whose schema holds the outbox and the
	// journal (Migrations).
	Pool *pgxpool.Pool
	// Source is the service name put on the events the client writes.
	Source string
	// FailedSubject is the operation's failure event, e.g.
	// events.ThumbnailsOperationFailed; billing refunds a reservation on it.
	FailedSubject string
	// FailedPayload builds that event's data (default: events.OperationFailed).
	// It must carry the reservation id as "reservationId".
	FailedPayload func(r Reservation, reason string) any
	// Timeout bounds one reserve call (default messaging.DefaultRequestTimeout),
	// within the caller's deadline.
	Timeout time.Duration
	// Observe, when set, is told the outcome of every Reserve call and of
	// every reservation Recover settles (the hook for saga metrics).
	Observe func(operation string, o Outcome)
	Log     *slog.Logger
}

// Client reserves credits for a service's paid operations.
type Client struct {
	cfg   Config
	owner owner
	// recovering bounds the recoveries in progress at once (recoverOne):
	// each holds a pooled connection in its transaction while its
	// Resolver takes another from the same pool, so half the pool at
	// most, or a crowd of retries after a crash would hold every
	// connection while each resolver waited for one.
	recovering chan struct{}
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	switch {
	case cfg.Billing == nil:
		return nil, errors.New("credits: no billing requester")
	case cfg.Pool == nil:
		return nil, errors.New("credits: no pool")
	case cfg.Pool.Config().MaxConns < 2:
		return nil, fmt.Errorf("credits: a pool of %d connection: a recovery holds one in its transaction while its resolver asks with another (HOOKLINE_DB_MAX_CONNS ≥ 2)", cfg.Pool.Config().MaxConns)
	case cfg.Source == "":
		return nil, errors.New("credits: no event source")
	case !strings.HasSuffix(cfg.FailedSubject, ".failed.v1"):
		// Billing refunds on the fact `failed` of a subject; anything
		// else would leave the reservation to expire.
		return nil, fmt.Errorf("credits: failed subject %q is not a *.failed.v1 event", cfg.FailedSubject)
	}
	if cfg.FailedPayload == nil {
		cfg.FailedPayload = func(r Reservation, reason string) any {
			return events.OperationFailed{ReservationID: r.ID, Operation: r.Operation, ResourceID: r.ResourceID, Reason: reason}
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = messaging.DefaultRequestTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Client{cfg: cfg, recovering: make(chan struct{}, max(1, cfg.Pool.Config().MaxConns/2))}, nil
}

// KeyOf is the request key of a principal: the client's Idempotency-Key
// when it sent one (a retry of the request reserves once), else the
// request id (a retry inside the service reserves once). The prefixes keep
// a key from ever equalling a request id.
func KeyOf(p principal.Principal) string {
	if p.IdempotencyKey != "" {
		return "idem:" + p.IdempotencyKey
	}
	if p.RequestID != "" {
		return "req:" + p.RequestID
	}
	return ""
}

// Namespaces of the derived ids; changing them would re-key every journal.
var (
	reservationNS = uuid.MustParse("2e501861-245c-46cf-a29a-a8780f0eaac5")
	failedNS      = uuid.MustParse("da2a6192-912f-4391-ac0b-a8edd2c3ce9b")
)

// ReservationID derives the id of item's reservation from the organization,
// operation and request key (UUIDv5). Generation 0 is the first reservation
// under these; Reserve moves to the next one once the last is terminal.
// Each part is length-prefixed, so no two tuples share a name.
func ReservationID(orgID, operation, key string, item, generation int) string {
	var b strings.Builder
	for _, s := range []string{orgID, operation, key, strconv.Itoa(item), strconv.Itoa(generation)} {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return uuid.NewSHA1(reservationNS, []byte(b.String())).String()
}

// failedEventID makes the failure event of a reservation deterministic, so
// writing it twice (timeout, then recovery) is one event downstream.
func failedEventID(reservationID string) string {
	return uuid.NewSHA1(failedNS, []byte(reservationID)).String()
}

func (r Request) validate() error {
	switch {
	case uuid.Validate(r.OrgID) != nil:
		return fmt.Errorf("credits: organization %q is not a uuid", r.OrgID)
	case r.Operation == "":
		return errors.New("credits: no operation")
	case r.Key == "":
		return errors.New("credits: no request key (a principal without idempotency key or request id)")
	case len(r.Items) == 0 || len(r.Items) > MaxItems:
		return fmt.Errorf("credits: %d items, want 1 to %d", len(r.Items), MaxItems)
	}
	for i, it := range r.Items {
		if it.Credits <= 0 {
			return fmt.Errorf("credits: item %d costs %d credits", i, it.Credits)
		}
	}
	return nil
}

// Reserve asks billing to hold the credits of every item, all or nothing.
// On success the work may run, and every returned reservation must later
// be settled with Complete or Fail. Otherwise nothing stays charged: the
// reservations already made are released with their failure events, and
// the error is an *apierr.Error:
//   - insufficient_credits (402) or quota_exceeded (403): billing refused;
//   - unavailable (503): billing did not answer in time, or its answer was
//     unreadable; a reservation it may have applied gets a failure event,
//     which billing applies whichever arrives first;
//   - idempotency_conflict (409): the same request holds open reservations
//     of a live process: it is still running. Those of a dead process are
//     recovered first (with the Resolver given to Start), and the request
//     then runs again or finds its result.
//
// Other errors (invalid request, database failure) are internal.
func (c *Client) Reserve(ctx context.Context, req Request) ([]Reservation, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	rs, err := c.openRetry(ctx, req)
	if err != nil {
		if apierr.Is(err, apierr.IdempotencyConflict) {
			c.observe(req.Operation, InProgress)
		}
		return nil, err
	}
	var total int64
	for _, it := range req.Items {
		total += it.Credits
	}
	for i, r := range rs {
		outcome, err := c.call(ctx, r, total)
		if outcome == Reserved {
			continue
		}
		c.observe(req.Operation, outcome)
		// Reservations before i hold credits; r may (Uncertain); none
		// after i was asked for.
		failed := rs[:i]
		if outcome == Uncertain {
			failed = rs[:i+1]
		}
		if cerr := c.release(ctx, rs, failed, "reservation of the request failed: "+string(outcome)); cerr != nil {
			// The rows stay open; the recovery pass fails them later.
			c.cfg.Log.ErrorContext(ctx, "release reservations", "operation", req.Operation, "err", cerr)
		}
		return nil, err
	}
	if err := c.confirm(ctx, rs); err != nil {
		// Billing holds the credits but the journal does not say so; the
		// rows stay `reserving` and the recovery pass fails them.
		c.observe(req.Operation, Uncertain)
		return nil, apierr.Wrap(apierr.Unavailable, "could not record the reservation; nothing was charged, retry later", err)
	}
	c.observe(req.Operation, Reserved)
	return rs, nil
}

// call asks billing for one reservation and classifies the answer; err is
// the client-facing error of a refusal. total is what the whole request
// costs, which is what a client short of credits needs to know.
func (c *Client) call(ctx context.Context, r Reservation, total int64) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var reply events.ReserveReply
	err := c.cfg.Billing.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{
		ReservationID: r.ID, OrgID: r.OrgID, Credits: r.Credits,
		Operation: r.Operation, ResourceType: r.ResourceType, ResourceID: r.ResourceID,
	}, &reply)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		// The request reached nobody: nothing can have been applied.
		return Unavailable, unavailable(err)
	case err != nil:
		// Timed out, cancelled, failed in billing's handler, or answered
		// in a form we cannot read: billing may have applied it.
		return Uncertain, unavailable(err)
	}
	switch reply.Outcome {
	case events.ReserveOK:
		return Reserved, nil
	case events.ReserveInsufficientCredits:
		return InsufficientCredits, apierr.New(apierr.InsufficientCredits, fmt.Sprintf("not enough credits: this request needs %d", total)).
			With("required", total)
	case events.ReserveQuotaExceeded:
		return QuotaExceeded, apierr.New(apierr.QuotaExceeded, orDefault(reply.Message, "a quota of your tier is exhausted"))
	case events.ReserveInvalid:
		return Rejected, fmt.Errorf("credits: billing rejected reservation %s as invalid: %s", r.ID, reply.Message)
	}
	return Uncertain, unavailable(fmt.Errorf("credits: billing answered an unknown outcome %q", reply.Outcome))
}

func unavailable(cause error) error {
	return apierr.Wrap(apierr.Unavailable, "billing is unavailable; nothing was charged, retry later", cause).
		With("service", "billing")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (c *Client) observe(operation string, o Outcome) {
	if c.cfg.Observe != nil {
		c.cfg.Observe(operation, o)
	}
}
