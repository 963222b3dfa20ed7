package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/services/clips/internal/fairshare"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/transcript"
)

func newID() string { return uuid.NewString() }

// Clips jobs have one retry budget: the attempts counted in Postgres
// (MaxAttempts, HOOKLINE_CLIPS_MAX_ATTEMPTS), and JetStream's MaxDeliver
// is set so that it never decides. The two cannot be one counter,
// because deliveries are not attempts: a preparation put back while its
// organization holds its share of the slots is delivered again without
// being an attempt, an attempt a shutdown interrupts is taken back
// (Uncount), and only the attempt counted in Postgres can end a project
// or a render with its reason and its event (a render's refund) in one
// transaction. A message JetStream dropped at MaxDeliver would instead
// leave a project downloading, or a render pending with its credits
// reserved, and nobody told. So preparations have no delivery cap, and
// a render's is the attempts plus maxDeliverSlack: renders are never put
// back, so the attempt that gives up always runs before the cap, and the
// cap only stops a job that fails before it is counted (the database
// down) from being delivered for ever.
const maxDeliverSlack = 2

// RenderMaxDeliveries is how many deliveries of a render job its consumer
// allows: more than the attempts a job allows (see maxDeliverSlack).
func (s *Worker) RenderMaxDeliveries() int { return s.maxAttempts() + maxDeliverSlack }

// PrepareMaxDeliveries is how many deliveries of a preparation job its
// consumer allows: no practical limit (see maxDeliverSlack). Postgres
// counts the attempts and ends the project after MaxAttempts; a delivery
// cap would only strand projects of a busy organization.
func (s *Worker) PrepareMaxDeliveries() int { return math.MaxInt32 }

// Slots share a worker process's preparations between organizations (nil
// pools limit nothing). Jobs admits a delivery: the consumer runs as many
// at once as Jobs has slots, and a job whose organization holds its share
// is put back, uncounted, for a free worker to take later, so one
// organization's slow sources never hold every slot. CPU is taken after
// the download, from probing to measuring: a download waiting on a slow
// server holds no CPU slot, and the processes that use the cores run as
// many at once as before.
type Slots struct{ Jobs, CPU *fairshare.Pool }

// maxPictureSide is the largest picture side a source may have: 8K and
// the widest 360° video fit; beyond it a frame takes hundreds of
// megabytes to decode, when the decoder accepts it at all.
const maxPictureSide = 8192

func (s *Worker) maxAttempts() int {
	if s.MaxAttempts <= 0 {
		return 3
	}
	return s.MaxAttempts
}

// failure is what ends a preparation: the reason is the project's
// downloadError. A failure that retrying may cure (the network's: a
// stalled or cut download) ends it only on the last attempt, which then
// says why rather than how many times it failed.
type failure struct {
	reason string
	retry  bool
}

func (f *failure) Error() string { return f.reason }

func fail(format string, args ...any) error { return &failure{reason: fmt.Sprintf(format, args...)} }

func failRetried(format string, args ...any) error {
	return &failure{reason: fmt.Sprintf(format, args...), retry: true}
}

// HandlePrepare runs one delivery of a preparation job. It returns nil
// when the project is ended (ready or failed) or was already; an error
// has the job delivered again.
func (s *Worker) HandlePrepare(ctx context.Context, e events.Envelope) error {
	var job events.ClipsPrepareJob
	if err := json.Unmarshal(e.Data, &job); err != nil || job.ProjectID == "" {
		return events.Invalid(fmt.Errorf("prepare job %s: bad payload: %w", e.ID, err))
	}
	release, ok := s.Slots.Jobs.TryAcquire(e.OrgID)
	if !ok {
		return fmt.Errorf("deferred: organization %s holds its share of this worker's preparations", e.OrgID)
	}
	defer release()
	p, captions, err := s.Store.Attempt(ctx, e.OrgID, job.ProjectID, s.now())
	if errors.Is(err, project.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Status != project.Downloading {
		return nil // ended by an earlier delivery
	}
	return s.runAttempt(ctx, attempt{
		kind: kindPreparation, table: "projects", id: p.ID, count: p.Attempts,
		work: func() error { return s.prepare(ctx, p, captions, job.Tier) },
		end: func(reason string) error {
			failed, err := events.New(ctx, events.ClipsProjectFailed, Source, p.OrgID, events.ProjectFailed{ProjectID: p.ID, Reason: reason})
			if err != nil {
				return err
			}
			_, err = s.Store.Fail(ctx, p.ID, reason, failed, s.now())
			return err
		},
		record: func(err error) error {
			return s.Store.RecordError(context.WithoutCancel(ctx), p.ID, err.Error(), s.now())
		},
	})
}

// attempt is one counted delivery of a job: work does it; end fails its
// subject for good with a reason; record, when set, keeps a retried
// attempt's error.
type attempt struct {
	kind, table, id string
	count           int
	work            func() error
	end             func(reason string) error
	record          func(error) error
}

// runAttempt runs a: past the attempts allowed, or on a failure retrying
// cannot fix, the subject ends failed; an attempt interrupted by shutdown
// is taken back; any other error has the job delivered again.
func (s *Worker) runAttempt(ctx context.Context, a attempt) error {
	log := s.log().With(a.table, a.id, "attempt", a.count)
	if a.count > s.maxAttempts() {
		log.WarnContext(ctx, a.kind+" gave up")
		countAttempt(a.kind, outcomeFailed, 0)
		return a.end(fmt.Sprintf("%s failed %d times", a.kind, s.maxAttempts()))
	}
	start := time.Now()
	err := a.work()
	s.steps.finish(a.id)
	took := time.Since(start)
	var f *failure
	switch {
	case errors.As(err, &f) && (!f.retry || a.count >= s.maxAttempts()):
		log.InfoContext(ctx, a.kind+" failed", "reason", f.reason)
		countAttempt(a.kind, outcomeFailed, took)
		return a.end(f.reason)
	case err != nil && ctx.Err() != nil:
		countAttempt(a.kind, outcomeInterrupted, took)
		s.uncount(ctx, a.table, a.id) // shutting down: not this attempt's fault
		return err
	case err != nil:
		countAttempt(a.kind, outcomeRetry, took)
		log.WarnContext(ctx, a.kind+" attempt failed", "err", err)
		if a.record != nil {
			if rerr := a.record(err); rerr != nil {
				log.WarnContext(ctx, "recording the attempt's error", "err", rerr)
			}
		}
		return err
	}
	countAttempt(a.kind, outcomeCompleted, took)
	return nil
}

// uncount takes back an attempt a shutdown interrupted.
func (s *Worker) uncount(ctx context.Context, table, id string) {
	if err := s.Store.Uncount(context.WithoutCancel(ctx), table, id); err != nil {
		s.log().WarnContext(ctx, "taking back an interrupted attempt", "id", id, "err", err)
	}
}

// prepare makes p's source ready: reused when the organization prepared
// it before, else downloaded, probed, transcribed when there were no
// captions, measured and stored; then the clips are rescored.
func (s *Worker) prepare(ctx context.Context, p project.Project, captions []videosite.Segment, tier string) error {
	src, ok, err := s.Store.Source(ctx, p.OrgID, p.SourceKey)
	if err != nil {
		return err
	}
	if !ok {
		if src, err = s.fetchSource(ctx, p, captions, tier); err != nil {
			return err
		}
	}
	if err := s.progress(ctx, p.ID, project.StepAnalyzing); err != nil {
		return err
	}
	edits, err := s.Transcripts.TranscriptEdits(ctx, p.OrgID, p.ID)
	if err != nil {
		return err
	}
	in := rankInput(p, src, transcript.Build(src.Segments, edits))
	if len(p.Clips) > 0 {
		in.Keep = p.Windows() // every id handed out stays valid
	}
	res, err := s.Moments.Rank(ctx, in)
	if err != nil {
		return err
	}
	p.Analysis, p.Clips, p.Duration, p.Transcript = res.Analysis, res.Clips, src.Duration, src.TranscriptOrigin
	ready, err := events.New(ctx, events.ClipsProjectReady, Source, p.OrgID, events.ProjectReady{
		ProjectID: p.ID, VideoTitle: p.VideoTitle, Duration: p.Duration, ClipCount: len(p.Clips)})
	if err != nil {
		return err
	}
	_, err = s.Store.Ready(ctx, src, p, ready, s.now())
	return err
}

// fetchSource downloads and measures p's video.
func (s *Worker) fetchSource(ctx context.Context, p project.Project, captions []videosite.Segment, tier string) (project.Source, error) {
	src := project.Source{OrgID: p.OrgID, Key: p.SourceKey, Segments: captions, TranscriptOrigin: project.TranscriptCaptions}
	vs, err := videosite.Parse(p.SourceURL)
	if err != nil {
		return src, fail("the video address is no longer valid")
	}
	dir, err := os.MkdirTemp(s.WorkDir, "clips-prepare-")
	if err != nil {
		return src, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	file := filepath.Join(dir, "source.mp4")

	if err := s.progress(ctx, p.ID, project.StepDownloading); err != nil {
		return src, err
	}
	if err := s.Videos.Download(ctx, vs, file); err != nil {
		return src, downloadError(err)
	}
	release, err := s.Slots.CPU.Acquire(ctx, p.OrgID)
	if err != nil {
		return src, err
	}
	err = s.measure(ctx, p, &src, file, dir, tier)
	release()
	if err != nil {
		return src, err
	}

	if err := s.progress(ctx, p.ID, project.StepStoring); err != nil {
		return src, err
	}
	src.MediaKey = MediaKey(p.OrgID, p.SourceKey)
	if err := s.store(ctx, file, src.MediaKey); err != nil {
		return src, err
	}
	return src, nil
}

// measure probes the downloaded file, transcribes it when there were no
// captions and measures its signals into src: the work that uses the
// cores, done in a CPU slot.
func (s *Worker) measure(ctx context.Context, p project.Project, src *project.Source, file, dir, tier string) error {
	if err := s.progress(ctx, p.ID, project.StepProbing); err != nil {
		return err
	}
	info, err := s.Media.Probe(ctx, file)
	switch {
	case errors.Is(err, media.ErrCorrupt):
		return fail("the file is not a playable video")
	case err != nil:
		return err
	case !info.HasVideo:
		return fail("the file has no video track")
	case !info.HasAudio:
		return fail("the video has no audio track")
	case info.Width > maxPictureSide || info.Height > maxPictureSide:
		return fail("the video's picture is %d×%d pixels; at most %d a side can be prepared", info.Width, info.Height, maxPictureSide)
	case p.Duration > 0 && short(info.Duration, p.Duration):
		// The site said how long the video is; the file is much shorter.
		return fail("the download ended early: the file lasts %.0f s of the %.0f s the video site declares", info.Duration, p.Duration)
	}
	if limit := s.Tiers.Resolve(tier).Quotas.SourceMinutes; limit > 0 && info.Duration > float64(limit*60) {
		return fail("the video lasts %d minutes; the %s tier allows up to %d", int(math.Ceil(info.Duration/60)), s.Tiers.Resolve(tier).Name, limit)
	}
	src.Duration, src.Width, src.Height = info.Duration, info.Width, info.Height

	// Recognition and analysis run side by side: neither keeps both cores
	// busy throughout (the model's load and the voice-activity split run on
	// one, the decode feeds the face search a frame at a time), so together
	// they take far less than their sum (bench/RESULTS.md: half the wall
	// time on a 10-minute talk). The project shows transcribing while speech
	// is recognised, then analysing from the share decoded by then.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	analysed := &analysis{}
	enterAnalysing := func() error {
		return analysed.enter(s.within(ctx, p.ID, project.StepAnalyzing), func() error { return s.progress(ctx, p.ID, project.StepAnalyzing) })
	}
	transcribing := len(src.Segments) == 0
	if !transcribing {
		if err := enterAnalysing(); err != nil {
			return err
		}
	}
	var sig media.Signals
	var analyseErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if sig, analyseErr = s.Media.Analyze(ctx, file, info, analysed.report); analyseErr != nil {
			cancel() // recognition is of no use now
		}
	}()
	if transcribing {
		err := s.transcribe(ctx, p, src, file, dir)
		if err == nil {
			err = enterAnalysing()
		}
		if err != nil {
			cancel()
			<-done
			if analyseErr != nil && !errors.Is(analyseErr, context.Canceled) {
				err = analyseErr // the cause; recognition stopped for it
			}
			return analysisError(err)
		}
	}
	<-done
	if err := analysisError(analyseErr); err != nil {
		return err
	}
	if short(sig.Decoded, info.Duration) {
		// The header declares the whole length; the data stops early (a
		// server that declared a shorter Content-Length than the file).
		return fail("the download ended early: the file holds %.1f s of the %.1f s it declares", sig.Decoded, info.Duration)
	}
	src.Signals = moments.Signals{Step: sig.Step, Energy: sig.Energy, Peaks: sig.Peaks, Scenes: sig.Scenes}
	src.Faces = sig.Faces
	return nil
}

// transcribe recognises the speech of file into src's segments.
func (s *Worker) transcribe(ctx context.Context, p project.Project, src *project.Source, file, dir string) error {
	if err := s.progress(ctx, p.ID, project.StepTranscribing); err != nil {
		return err
	}
	wav := filepath.Join(dir, "speech.wav")
	if err := s.Media.ExtractWAV(ctx, file, wav); err != nil {
		return err
	}
	segs, err := s.Transcriber.Transcribe(ctx, wav, s.within(ctx, p.ID, project.StepTranscribing))
	if err != nil {
		return fmt.Errorf("transcribing with %s: %w", s.Transcriber.Name(), err)
	}
	// A recogniser's words are text from outside too (a remote
	// provider's), held to the same rule as captions.
	src.Segments, src.TranscriptOrigin = videosite.SanitizeSegments(segs), project.TranscriptRecognition
	return nil
}

// analysisError is err of Analyze as a preparation's error: a file
// ffmpeg gives up on fails the project.
func analysisError(err error) error {
	var de *media.DecodeError
	if errors.As(err, &de) {
		return fail("the video cannot be decoded: %s", de.Reason)
	}
	return err
}

// analysis passes Analyze's progress on once the project shows the
// analysing step, starting from the share decoded by then: while speech
// is still recognised, the project shows that.
type analysis struct {
	mu   sync.Mutex
	done float64
	to   func(done float64) // nil until enter
}

// enter shows the analysing step (start records it) and passes the
// share decoded so far, and all that follows, to to.
func (a *analysis) enter(to func(done float64), start func() error) error {
	if err := start(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.to = to
	if a.done > 0 {
		to(a.done)
	}
	return nil
}

func (a *analysis) report(done float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.done = done
	if a.to != nil {
		a.to(done)
	}
}

// short reports media lasting clearly less than declared: by more than a
// second and 2 % (containers and sites round, edit lists trim).
func short(have, declared float64) bool { return have < declared-1-0.02*declared }

// MediaKey is where an organization's source video is kept: one object
// per source, so a retried preparation overwrites rather than adds.
func MediaKey(orgID, sourceKey string) string {
	sum := sha256.Sum256([]byte(sourceKey))
	return "sources/" + orgID + "/" + hex.EncodeToString(sum[:16]) + ".mp4"
}

func (s *Worker) store(ctx context.Context, file, key string) error {
	f, err := os.Open(file) //nolint:gosec // G304: a path the service chose
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return s.Blobs.Put(ctx, key, f, st.Size(), "video/mp4")
}

// downloadError sorts a download failure: what retrying cannot fix ends
// the project; the rest is retried, and a stalled or cut download says so
// when the attempts run out.
func downloadError(err error) error {
	var stall *safefetch.StallError
	switch {
	case errors.As(err, &stall):
		return failRetried("the download stalled (idle timeout): %s", stall.Detail)
	case errors.Is(err, safefetch.ErrTruncated):
		return failRetried("the download ended early: the server sent less than it declared")
	case errors.Is(err, safefetch.ErrTooLarge):
		return fail("the video file is too large to download")
	case errors.Is(err, videosite.ErrForbidden):
		return fail("the video address may not be fetched")
	case errors.Is(err, videosite.ErrInvalidURL):
		return fail("the video address no longer serves a video")
	}
	return fmt.Errorf("download: %w", err)
}
