package credits

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Owners (credits_0002_owner.sql). A reservation open in the journal is
// either work still running or work a dead process left behind, and only
// the process that made it can tell: the grace of the recovery pass was
// the only way to tell them apart, and it had to exceed the longest work,
// which left a crashed process's customers' credits held for minutes. So
// each process that reserves holds, for as long as it lives, a session
// advisory lock of a number of its own (on a connection of its own), and
// writes that number into each reservation it journals. Postgres drops the
// lock when the session ends: at once when the process dies (the kernel
// closes its socket), or when a partition outlasts the server's keepalive.
// A reservation whose owner holds no lock has no live request: the
// recovery pass settles it at its next run, the first of which is the
// restarted process's start-up, and a retry of its request settles it at
// once (Reserve). Those of live owners keep the grace, and a retry of
// theirs is still in progress.
//
// A live process wrongly taken for dead (its lock connection lost, then
// taken again) costs nothing but its work in flight: the pass settles its
// reservations first, and the work's own settlement then finds them
// settled (ErrSettled) and does not deliver the result as paid.

// ownerClass is the first key of the owners' locks ("HLCR"); the second
// is the owner number. Two int4 keys (pg_locks' objsubid 2) never meet
// the single bigint keys pgkit's migration lock uses (objsubid 1).
const ownerClass int32 = 0x484c4352

// orphaned is the condition, over a journal row, of a reservation whose
// owner holds its lock no more in this database; $2 is this process's own
// number (0 when it has none).
var orphaned = fmt.Sprintf(`(owner IS NOT NULL AND owner <> $2 AND owner::bigint NOT IN (
	SELECT l.objid::bigint FROM pg_locks l
	WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = %d::oid
	AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())))`, ownerClass)

// ownerTimeout bounds taking and checking the owner's lock.
const ownerTimeout = 10 * time.Second

// owner is a Client's owner lock.
type owner struct {
	mu     sync.Mutex // guards conn and closed
	conn   *pgx.Conn
	closed bool
	id     atomic.Int32 // 0 until Start
	// resolve is the service's judge of orphans, given to Start.
	resolve atomic.Pointer[Resolver]
}

// Start makes the process the owner of the reservations this client
// journals from now on: it takes an owner lock of a fresh number, on a
// connection of its own kept until Close, and the reservations record that
// number. resolve is the service's judge of the reservations dead owners
// left (Resolver): RecoveryWorker's passes and a retry of a dead owner's
// request (Reserve) ask it. Call Start before serving: reservations made
// before it record no owner and are recovered only after their grace.
// RecoveryWorker checks the lock at each pass and takes it again if its
// connection was lost.
func (c *Client) Start(ctx context.Context, resolve Resolver) error {
	if resolve == nil {
		return errors.New("credits: start without a resolver")
	}
	c.owner.mu.Lock()
	defer c.owner.mu.Unlock()
	if c.owner.conn != nil || c.owner.closed {
		return nil
	}
	c.owner.resolve.Store(&resolve)
	return c.lockOwner(ctx, 0)
}

// resolver is the Resolver given to Start, nil before.
func (c *Client) resolver() Resolver {
	if p := c.owner.resolve.Load(); p != nil {
		return *p
	}
	return nil
}

// lockOwner connects and takes the lock of number want, or of a random
// number when want is 0 or another session holds it. c.owner.mu is held.
func (c *Client) lockOwner(ctx context.Context, want int32) error {
	ctx, cancel := context.WithTimeout(ctx, ownerTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, c.cfg.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("credits: owner lock: connect: %w", err)
	}
	for try := range 8 {
		id := want
		if id == 0 || try > 0 {
			id = rand.Int32N(math.MaxInt32) + 1 //nolint:gosec // G404: a lock number, not a secret
		}
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, ownerClass, id).Scan(&ok); err != nil {
			_ = conn.Close(ctx)
			return fmt.Errorf("credits: owner lock: %w", err)
		}
		if ok {
			c.owner.conn = conn
			if prev := c.owner.id.Swap(id); prev != 0 && prev != id {
				c.cfg.Log.WarnContext(ctx, "owner lock taken again under a new number; reservations in flight will be recovered", "was", prev, "now", id)
			}
			return nil
		}
	}
	_ = conn.Close(ctx)
	return errors.New("credits: owner lock: every number tried is held by another session")
}

// keepOwner checks the owner lock's connection and, when it was lost
// (Postgres restarted, the network failed), takes the lock again. A
// client never started has nothing to keep.
func (c *Client) keepOwner(ctx context.Context) error {
	c.owner.mu.Lock()
	defer c.owner.mu.Unlock()
	switch {
	case c.owner.closed || c.owner.id.Load() == 0:
		return nil
	case c.owner.conn == nil: // a failed attempt of an earlier pass
		return c.lockOwner(ctx, c.owner.id.Load())
	}
	pctx, cancel := context.WithTimeout(ctx, ownerTimeout)
	defer cancel()
	if err := c.owner.conn.Ping(pctx); err == nil {
		return nil
	}
	_ = c.owner.conn.Close(pctx)
	c.owner.conn = nil
	// The session and its lock are gone: the same number if nobody took
	// it meanwhile, so the reservations in flight stay this process's.
	return c.lockOwner(ctx, c.owner.id.Load())
}

// Close releases the owner lock: the reservations still open become
// orphans, settled by the next recovery pass of any process of the
// service. Call it once the requests have stopped.
func (c *Client) Close() {
	c.owner.mu.Lock()
	defer c.owner.mu.Unlock()
	c.owner.closed = true
	if c.owner.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), ownerTimeout)
		defer cancel()
		_ = c.owner.conn.Close(ctx)
		c.owner.conn = nil
	}
}
