package media

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"

	"hookline.dev/services/clips/internal/facetrack"
)

// Signals are the measurements of a source that clip scoring uses.
type Signals struct {
	Step   float64   // seconds per Energy sample (0.5)
	Energy []float64 // loudness per step, 0..1 (see Analyze)
	Peaks  []float64 // start times (s) of laughter/applause-like bursts
	Scenes []float64 // times (s) of scene changes (cuts)
	// Decoded is how many seconds of media the file actually holds: the
	// longer of its decoded audio and video. A file cut short (a download
	// that ended early) still declares its whole length in its header;
	// only decoding it tells.
	Decoded float64
	// Faces are the faces and speech loudness sampled for renders to
	// follow (facetrack), with the K-weighted loudness a render
	// normalises by, taken when Tools.Faces is set and the video is
	// landscape (the only one a portrait render reframes); nil otherwise.
	Faces *facetrack.Samples
}

// Analysis parameters. Audio is read as 8 kHz mono; loudness and
// noisiness are measured on 0.25 s windows, two of which make an Energy
// step. Video is sampled at sceneFPS as tiny YUV frames.
const (
	audioRate   = 8000
	window      = audioRate / 4 // samples per 0.25 s window
	windowSec   = 0.25
	step        = 0.5
	floorDB     = -60.0 // loudness mapped to Energy 0
	fftSize     = 256   // spectral flatness frame (32 ms)
	sceneFPS    = 4
	sceneW      = 64
	sceneH      = 36
	sceneFrame  = sceneW*sceneH + 2*(sceneW/2)*(sceneH/2)
	peakRise    = 10.0  // dB above the local median
	peakMinDB   = -35.0 // dBFS, so faint noise in silence is no burst
	peakFlat    = 0.15  // spectral flatness of broadband noise
	peakContext = 10.0  // seconds either side for the local median
	peakGap     = 1.0   // seconds: bursts closer than this are one
)

// Analyze measures the signals of the file at path, whose Probe result is
// info. It runs one ffmpeg per signal, concurrently: the audio track as
// 8 kHz mono PCM and the video as 64x36 frames at 4 fps, both piped to
// this process and measured in Go.
//
// Energy is the RMS loudness of each 0.5 s step in dBFS mapped linearly
// from [-60 dBFS, the loudest step] to [0, 1].
//
// Peaks are laughter/applause-like bursts: runs of at least two 0.25 s
// windows (0.5 s) each at least 10 dB louder than the median window of the
// surrounding ±10 s, louder than -35 dBFS, and broadband — mean spectral
// flatness of its 32 ms frames at least 0.15 (white or pink noise and
// applause measure 0.2–0.6; speech, music and tones stay under 0.1).
// Bursts less than 1 s apart are one; each is reported by its start.
//
// A file ffmpeg gives up on (it exits with a status of its own, not
// killed and not cancelled) is a *DecodeError: decoding it again gives the
// same answer.
//
// Scenes are cuts: a sampled frame whose mean absolute difference from
// the previous one (over Y, U and V) is at least sceneMinDiff and at
// least sceneRatio times the median difference of the frames around it,
// so steady motion does not count. A cut is reported at the time of the
// first frame of the new scene (within 0.25 s of the cut).
//
// progress, when not nil, hears the share of the video decoded (of
// info.Duration) as the frames come.
func (t Tools) Analyze(ctx context.Context, path string, info Info, progress func(done float64)) (Signals, error) {
	sig := Signals{Step: step}
	var wg sync.WaitGroup
	var audioErr, videoErr error
	var audioSec, videoSec float64
	parent := ctx
	ctx, cancel := context.WithCancel(ctx) // a failure stops the other
	defer cancel()
	var faces *facetrack.Samples
	speech, weighted := SpeechMeter(audioRate), LoudnessMeter(audioRate)
	if t.Faces != nil && info.HasVideo && info.Width > info.Height {
		faces = &facetrack.Samples{}
	}
	if info.HasAudio {
		wg.Go(func() {
			if sig.Energy, sig.Peaks, audioSec, audioErr = t.audio(ctx, path, io.MultiWriter(speech, weighted)); audioErr != nil {
				cancel()
			}
		})
	}
	if info.HasVideo {
		wg.Go(func() {
			if sig.Scenes, videoSec, videoErr = t.scenes(ctx, path, info, faces, progress); videoErr != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if parent.Err() == nil { // not the caller's cancellation: drop the one it caused
		for _, err := range []*error{&audioErr, &videoErr} {
			if errors.Is(*err, context.Canceled) {
				*err = nil
			}
		}
	}
	if err := errors.Join(audioErr, videoErr); err != nil {
		return Signals{}, fmt.Errorf("analyzing %s: %w", path, err)
	}
	sig.Decoded = max(audioSec, videoSec)
	if faces != nil {
		if info.HasAudio {
			faces.Loudness = speech.Loudness()
			for _, db := range weighted.Loudness() {
				faces.Weighted = append(faces.Weighted, db-0.691) // BS.1770's offset
			}
		}
		sig.Faces = faces
	}
	return sig, nil
}

// pipe runs ffmpeg with args, passing its stdout to read (and, given
// more readers, its file descriptors 3, 4, … to them, read concurrently),
// and returns the first error of any; ffmpeg exiting with a status of its
// own is a *DecodeError.
func (t Tools) pipe(ctx context.Context, args []string, read func(io.Reader) error, more ...func(io.Reader) error) error {
	var stderr tail
	var first firstLine
	cmd := t.FFmpeg.Command(ctx, args...)
	cmd.Stderr = io.MultiWriter(&stderr, &first)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("starting ffmpeg: %w", err)
	}
	var readers []*os.File
	defer func() {
		for _, f := range readers {
			_ = f.Close()
		}
	}()
	for range more {
		r, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("starting ffmpeg: %w", err)
		}
		readers, cmd.ExtraFiles = append(readers, r), append(cmd.ExtraFiles, w)
	}
	err = cmd.Start()
	for _, w := range cmd.ExtraFiles {
		_ = w.Close() // the child holds its copies
	}
	if err != nil {
		return fmt.Errorf("starting ffmpeg: %w", err)
	}
	var wg sync.WaitGroup
	moreErrs := make([]error, len(more))
	for i, rd := range more {
		wg.Go(func() {
			if moreErrs[i] = rd(bufio.NewReaderSize(readers[i], 1<<16)); moreErrs[i] != nil {
				_ = cmd.Process.Kill()
			}
			_, _ = io.Copy(io.Discard, readers[i])
		})
	}
	readErr := read(bufio.NewReaderSize(out, 1<<16))
	if readErr != nil {
		_ = cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, out)
	wg.Wait()
	waitErr := cmd.Wait()
	if readErr == nil {
		readErr = errors.Join(moreErrs...)
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case readErr != nil:
		return readErr
	case decodeFailure(waitErr):
		return &DecodeError{Reason: first.reason(), Detail: stderr.String()}
	case waitErr != nil:
		return fmt.Errorf("ffmpeg: %w: %s", waitErr, stderr.String())
	}
	return nil
}

// audio reads the first audio track and returns Energy, Peaks and how
// many seconds of it decoded; speech hears the same sound.
func (t Tools) audio(ctx context.Context, path string, speech io.Writer) (energy, peaks []float64, seconds float64, err error) {
	loud := &Meter{Rate: audioRate, Step: windowSec}
	var flat []float64 // per window
	buf := make([]byte, 2*window)
	x := make([]float64, window)
	fft := newFFT(fftSize)
	err = t.pipe(ctx, []string{"-i", local(path), "-map", "0:a:0", "-ac", "1", "-ar", fmt.Sprint(audioRate), "-f", "s16le", "pipe:"},
		func(r io.Reader) error {
			for {
				n, err := io.ReadFull(r, buf)
				if n < 2 {
					if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
						return nil
					}
					return fmt.Errorf("reading audio: %w", err)
				}
				_, _ = loud.Write(buf[:n])
				_, _ = speech.Write(buf[:n])
				m := n / 2
				for i := range m {
					x[i] = float64(int16(binary.LittleEndian.Uint16(buf[2*i:]))) / 32768 //nolint:gosec // G115: reinterpreting s16le bits
				}
				flat = append(flat, fft.flatness(x[:m]))
				if err != nil {
					return nil
				}
			}
		})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("measuring audio: %w", err)
	}
	power := loud.Power()
	db := make([]float64, len(power))
	for i, p := range power {
		db[i] = decibels(p)
	}
	return energyOf(power), peaksOf(db, flat), loud.Seconds(), nil
}

func decibels(meanSquare float64) float64 { return 10 * math.Log10(meanSquare+1e-10) }

// energyOf maps the loudness of each step (two windows) to 0..1.
func energyOf(sumsq []float64) []float64 {
	per := int(step / windowSec)
	out := make([]float64, 0, (len(sumsq)+per-1)/per)
	for i := 0; i < len(sumsq); i += per {
		chunk := sumsq[i:min(i+per, len(sumsq))]
		var s float64
		for _, v := range chunk {
			s += v
		}
		out = append(out, decibels(s/float64(len(chunk))))
	}
	top := floorDB
	for _, v := range out {
		top = max(top, v)
	}
	for i, v := range out {
		if top > floorDB {
			out[i] = min(1, max(0, (v-floorDB)/(top-floorDB)))
		} else {
			out[i] = 0
		}
	}
	return out
}

// peaksOf applies the burst rule documented on Analyze to per-window
// loudness (dBFS) and spectral flatness.
func peaksOf(db, flat []float64) []float64 {
	ctxN := int(peakContext / windowSec)
	near := make([]float64, 0, 2*ctxN+1)
	hot := make([]bool, len(db))
	for i := range db {
		near = append(near[:0], db[max(0, i-ctxN):min(len(db), i+ctxN+1)]...)
		slices.Sort(near)
		hot[i] = db[i] >= near[len(near)/2]+peakRise && db[i] >= peakMinDB && flat[i] >= peakFlat
	}
	var peaks []float64
	end := math.Inf(-1) // of the last burst, seconds
	for i := 0; i < len(hot); {
		j := i
		for j < len(hot) && hot[j] {
			j++
		}
		if j-i >= 2 {
			if start := float64(i) * windowSec; start-end >= peakGap {
				peaks = append(peaks, start)
			}
			end = float64(j) * windowSec
		}
		i = j + 1
	}
	return peaks
}
