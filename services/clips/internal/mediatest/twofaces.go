package mediatest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	xdraw "golang.org/x/image/draw"

	"hookline.dev/pkg/media/vision"
)

// Talker is one person of a two-person talk: a photograph of a face and
// the espeak-ng voice that speaks for it.
type Talker struct {
	Photo image.Image
	Voice string
}

// TalkSpec describes a two-person talk: two photographs side by side in a
// landscape frame, taking turns to speak Lines (line i is spoken by
// Talkers[i%2]), each photograph's mouth opening and closing frame by
// frame with its own voice's loudness.
type TalkSpec struct {
	Width, Height int // default 1280×720
	Talkers       [2]Talker
	Lines         []string
	// Faces places each photograph's face and 68 landmarks (dlib), from
	// which its mouth is drawn.
	Faces vision.Finder
	// Pause is the silence after each line, seconds (0: the 0.4 s between
	// sentences of Speech).
	Pause float64
}

// Turn is a line of the talk: who speaks it and when, in seconds.
type Turn struct {
	Speaker    int
	Start, End float64
	Text       string
}

// Conversation is a made two-person talk.
type Conversation struct {
	File    string
	Seconds float64
	Turns   []Turn
	// Faces are the talkers' face boxes in the video (from the landmarks:
	// brows to chin, ear to ear).
	Faces [2]image.Rectangle
}

// SpeakerAt is the talker speaking at t, -1 in the pauses.
func (tk Conversation) SpeakerAt(t float64) int {
	for _, tn := range tk.Turns {
		if t >= tn.Start && t < tn.End {
			return tn.Speaker
		}
	}
	return -1
}

// talkFPS is the frame rate of a talk; leadIn the silence before the
// first line.
const (
	talkFPS = 25
	leadIn  = 0.5
)

// TwoPersonTalk makes the talk of spec in dir: an H.264/AAC MP4 whose
// picture is drawn here frame by frame and whose sound is the mixed
// voices.
func TwoPersonTalk(t testing.TB, dir string, spec TalkSpec) Conversation {
	t.Helper()
	if spec.Width == 0 {
		spec.Width, spec.Height = 1280, 720
	}
	canvas := image.NewRGBA(image.Rect(0, 0, spec.Width, spec.Height))
	draw.Draw(canvas, canvas.Bounds(), image.NewUniform(color.RGBA{R: 0x30, G: 0x38, B: 0x48, A: 0xff}), image.Point{}, draw.Src)
	var talk Conversation
	var mouths [2]mouth
	for i, tk := range spec.Talkers {
		lm := place(t, canvas, tk.Photo, spec.Faces, i)
		mouths[i] = newMouth(canvas, lm)
		talk.Faces[i] = lm.Bounds()
	}

	// The voices on one timeline: each talker's own track (which drives
	// its mouth) and their sum (the sound).
	pause := spec.Pause
	if pause == 0 {
		pause = gap
	}
	var tracks [2][]int16
	pos := int(leadIn * speechRate)
	for i, line := range spec.Lines {
		who := i % 2
		part := filepath.Join(dir, fmt.Sprintf("line-%03d.wav", i))
		run(t, "espeak-ng", "-v", spec.Talkers[who].Voice, "-s", "165", "-w", part, line)
		pcm := samples(wavData(t, part))
		for k := range tracks {
			if need := pos + len(pcm); len(tracks[k]) < need {
				tracks[k] = append(tracks[k], make([]int16, need-len(tracks[k]))...)
			}
		}
		copy(tracks[who][pos:], pcm)
		talk.Turns = append(talk.Turns, Turn{Speaker: who, Start: float64(pos) / speechRate, End: float64(pos+len(pcm)) / speechRate, Text: line})
		pos += len(pcm) + int(pause*speechRate)
	}
	n := pos + int(leadIn*speechRate)
	mixed := make([]byte, 2*n)
	for k := range tracks {
		tracks[k] = append(tracks[k], make([]int16, n-len(tracks[k]))...)
	}
	for s := range n {
		v := max(-32768, min(32767, int(tracks[0][s])+int(tracks[1][s])))
		binary.LittleEndian.PutUint16(mixed[2*s:], uint16(int16(v))) //nolint:gosec // clamped to int16 above
	}
	wav := filepath.Join(dir, "talk.wav")
	writeWAV(t, wav, mixed, speechRate)
	talk.Seconds = float64(n) / speechRate

	var loud [2][]float64
	for k := range tracks {
		loud[k] = frameLoudness(tracks[k], int(math.Ceil(talk.Seconds*talkFPS)))
	}
	talk.File = filepath.Join(dir, "talk.mp4")
	cmd := exec.CommandContext(t.Context(), "ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba", //nolint:gosec // G204: a test's own command
		"-s", fmt.Sprintf("%dx%d", spec.Width, spec.Height), "-r", fmt.Sprint(talkFPS), "-i", "pipe:0", "-i", wav,
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-shortest", "-movflags", "+faststart", talk.File)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	frame := image.NewRGBA(canvas.Bounds())
	for f := range len(loud[0]) {
		copy(frame.Pix, canvas.Pix)
		for k := range mouths {
			mouths[k].draw(frame, loud[k][f])
		}
		if _, err := in.Write(frame.Pix); err != nil {
			t.Fatalf("ffmpeg: %v: %s", err, stderr.String())
		}
	}
	_ = in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, stderr.String())
	}
	return talk
}

// place draws photo into the half slot of canvas, scaled so that its face
// is a sixth of the frame's width and centred in the half, and returns
// the face's landmarks in the canvas.
func place(t testing.TB, canvas *image.RGBA, photo image.Image, finder vision.Finder, slot int) vision.Landmarks {
	t.Helper()
	faces := finder.Detect(photo)
	if len(faces) == 0 || faces[0].Landmarks == nil {
		t.Fatalf("talker %d: no face with landmarks in the photograph", slot)
	}
	lm := *faces[0].Landmarks
	b := canvas.Bounds()
	scale := float64(b.Dx()) / 6 / lm.FaceWidth()
	cx, cy := lm.Centroid(vision.JawStart, vision.InnerLipsEnd)
	// The photograph's face centre lands at the centre of the half, a
	// little above the frame's middle.
	dx := float64(b.Dx())*(0.25+0.5*float64(slot)) - cx*scale
	dy := float64(b.Dy())*0.45 - cy*scale
	pb := photo.Bounds()
	dst := image.Rect(int(dx+float64(pb.Min.X)*scale), int(dy+float64(pb.Min.Y)*scale), int(dx+float64(pb.Max.X)*scale), int(dy+float64(pb.Max.Y)*scale))
	// Each photograph stays in its half.
	half := image.Rect(b.Dx()/2*slot, 0, b.Dx()/2*(slot+1), b.Dy())
	clipped := image.NewRGBA(dst)
	xdraw.CatmullRom.Scale(clipped, dst, photo, pb, draw.Src, nil)
	draw.Draw(canvas, dst.Intersect(half), clipped, dst.Intersect(half).Min, draw.Src)
	for i, p := range lm {
		lm[i] = image.Pt(int(math.Round(float64(p.X)*scale+dx)), int(math.Round(float64(p.Y)*scale+dy)))
	}
	return lm
}

// mouth draws a face's mouth open by a share of its largest opening.
type mouth struct {
	cx, cy, rx, maxRy float64
	lip               color.RGBA
	inner             []image.Point
}

func newMouth(canvas *image.RGBA, lm vision.Landmarks) mouth {
	cx, cy := lm.Centroid(vision.InnerLipsStart, vision.InnerLipsEnd)
	w := math.Hypot(float64(lm[64].X-lm[60].X), float64(lm[64].Y-lm[60].Y))
	// The lips' colour is read on the outer lip line, where the photograph
	// shows lip rather than teeth or the gap between the lips.
	var r, g, bl, n int
	for _, p := range lm[vision.OuterLipsStart:vision.OuterLipsEnd] {
		q := image.Pt(int(math.Round(0.7*float64(p.X)+0.3*cx)), int(math.Round(0.7*float64(p.Y)+0.3*cy)))
		c := canvas.RGBAAt(q.X, q.Y)
		r, g, bl, n = r+int(c.R), g+int(c.G), bl+int(c.B), n+1
	}
	return mouth{cx: cx, cy: cy, rx: 0.5 * w, maxRy: 0.22 * w, lip: color.RGBA{R: uint8(r / n), G: uint8(g / n), B: uint8(bl / n), A: 0xff}, //nolint:gosec // means of bytes
		inner: append([]image.Point(nil), lm[vision.InnerLipsStart:vision.InnerLipsEnd]...)}
}

// draw closes the photograph's lips (the inner-lip area painted the lips'
// colour) and opens a dark mouth of open (0..1) of the largest height.
func (m mouth) draw(img *image.RGBA, open float64) {
	bounds := image.Rect(int(m.cx-m.rx)-2, int(m.cy-m.maxRy)-3, int(m.cx+m.rx)+3, int(m.cy+m.maxRy)+4)
	ry := m.maxRy * open
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			switch {
			case ry >= 0.5 && sq((px-m.cx)/m.rx)+sq((py-m.cy)/ry) <= 1:
				img.SetRGBA(x, y, color.RGBA{R: 0x3a, G: 0x10, B: 0x14, A: 0xff})
			case inPolygon(m.inner, px, py):
				img.SetRGBA(x, y, m.lip)
			}
		}
	}
}

func sq(x float64) float64 { return x * x }

// inPolygon is the even-odd test of (x, y) against poly.
func inPolygon(poly []image.Point, x, y float64) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		xi, yi, xj, yj := float64(poly[i].X), float64(poly[i].Y), float64(poly[j].X), float64(poly[j].Y)
		if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

// frameLoudness is a voice's loudness at each of frames video frames,
// 0..1 of its loudest: the RMS over the 80 ms around the frame.
func frameLoudness(pcm []int16, frames int) []float64 {
	out := make([]float64, frames)
	half := int(0.04 * speechRate)
	peak := 0.0
	for f := range out {
		c := int(float64(f) / talkFPS * speechRate)
		sum, n := 0.0, 0
		for s := max(0, c-half); s < min(len(pcm), c+half); s++ {
			sum += float64(pcm[s]) * float64(pcm[s])
			n++
		}
		if n > 0 {
			out[f] = math.Sqrt(sum / float64(n))
		}
		peak = math.Max(peak, out[f])
	}
	for f := range out {
		if peak > 0 {
			out[f] = math.Min(1, out[f]/(0.7*peak))
		}
		if out[f] < 0.08 {
			out[f] = 0
		}
	}
	return out
}

func samples(b []byte) []int16 {
	out := make([]int16, len(b)/2)
	for i := range out {
		out[i] = int16(binary.LittleEndian.Uint16(b[2*i:])) //nolint:gosec // PCM samples
	}
	return out
}
