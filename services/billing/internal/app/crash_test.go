package app_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/testkit"
)

// TestCrashRecovery runs billing as a real process, kills it with SIGKILL
// at random moments during a burst of reservations and settlements,
// restarts it, and then checks every ledger invariant.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		// Skipped only where skipping is allowed (make test-unit); make
		// test runs without -short, and under HOOKLINE_TEST_REQUIRE this
		// fails instead.
		testkit.Missing(t, "the crash test runs minutes: run it without -short")
	}
	// Without -race: the process must restart quickly; the race detector
	// covers the same code in the in-process tests.
	h := newHarness(t) // its in-process instance opens the accounts, then stops
	bin := testkit.Build(t, "hookline.dev/services/billing/cmd/billing")
	const accounts = 10
	orgs := make([]string, accounts)
	for i := range orgs {
		orgs[i] = h.openAccount("pro")
	}

	// From here on only the external process serves the schema.
	h.Stop()
	port := testkit.ReservePort(t)
	proc := &process{t: t, bin: bin, port: port, env: testkit.EnvList(h.Env), log: filepath.Join(t.TempDir(), "billing.log")}
	proc.start()
	defer proc.stop()

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// The killer: SIGKILL at random moments until the burst is over.
	burstDone := make(chan struct{})
	var kills atomic.Int64
	var killer sync.WaitGroup
	killer.Go(func() {
		for {
			select {
			case <-burstDone:
				return
			case <-time.After(time.Duration(200+rand.IntN(800)) * time.Millisecond):
			}
			proc.kill()
			kills.Add(1)
			proc.start()
			// Kill only a process that got to work: a crash loop during
			// start-up tests nothing.
			testkit.WaitHTTP(t, port.URL+"/readyz", 30*time.Second)
		}
	})

	// The burst lasts for at least 2000 reservations and at least three
	// kills: refusals answer fast once the accounts run dry, so a burst
	// of a fixed size can end before the first kill.
	const reservations, minKills = 2000, 3
	var ok, refused, retries atomic.Int64
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	for i := 0; i < reservations || kills.Load() < minKills; i++ {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			org := orgs[rand.IntN(accounts)]
			id := fmt.Sprintf("crash-%d", i)
			completed := rand.IntN(3) > 0
			if rand.IntN(20) == 0 { // the outcome overtakes its reservation
				h.settle(org, id, completed)
			}
			var reply events.ReserveReply
			for { // a caller retries with the same id until billing answers
				rctx, rcancel := context.WithTimeout(ctx, 2*time.Second)
				r, err := h.reserve(rctx, org, id, 1+int64(rand.IntN(3)))
				rcancel()
				if err == nil {
					reply = r
					break
				}
				if !errors.Is(err, messaging.ErrUnavailable) || ctx.Err() != nil {
					t.Errorf("reserve %s: %v", id, err)
					return
				}
				retries.Add(1)
				time.Sleep(50 * time.Millisecond)
			}
			if reply.Outcome != events.ReserveOK {
				refused.Add(1)
				return
			}
			ok.Add(1)
			h.settle(org, id, completed)
			if rand.IntN(10) == 0 { // a duplicate or contradicting second outcome
				h.settle(org, id, !completed)
			}
		})
	}
	wg.Wait()
	close(burstDone)
	killer.Wait()
	t.Logf("reservations: %d ok, %d refused, %d retried calls, %d kills", ok.Load(), refused.Load(), retries.Load(), kills.Load())
	if kills.Load() < minKills {
		t.Fatalf("only %d kills happened; the burst was too short to test recovery", kills.Load())
	}

	// Every accepted reservation settles exactly once, despite the crashes.
	testkit.Eventually(t, 60*time.Second, "all reservations settled", func() bool {
		var pending int
		_ = h.Pool.QueryRow(ctx, `SELECT count(*) FROM usage WHERE status = 'reserved'`).Scan(&pending)
		return pending == 0
	})
	var stored int64
	if err := h.Pool.QueryRow(ctx, `SELECT count(*) FROM usage`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != ok.Load() {
		t.Fatalf("%d reservations stored, %d answered ok", stored, ok.Load())
	}
	checkInvariants(t, h.Pool, h.store)
}

// process is billing as an operating-system process.
type process struct {
	t    *testing.T
	bin  string
	port *testkit.Port // its HTTP address, held across the kills
	env  []string
	log  string
	mu   sync.Mutex
	cmd  *exec.Cmd
}

func (p *process) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		p.t.Error(err)
		return
	}
	cmd := exec.Command(p.bin)
	cmd.Env, cmd.Stdout, cmd.Stderr = p.env, f, f
	p.port.Pass(cmd, "HOOKLINE_HTTP_ADDR")
	if err := cmd.Start(); err != nil {
		p.t.Errorf("start billing: %v", err)
		return
	}
	p.cmd = cmd
}

func (p *process) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		_ = p.cmd.Process.Kill() // SIGKILL: no shutdown code runs
		_ = p.cmd.Wait()
		p.cmd = nil
	}
}

func (p *process) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		_ = p.cmd.Process.Signal(os.Interrupt)
		_ = p.cmd.Wait()
		p.cmd = nil
	}
}
