package postgres

import (
	"image"
	"math"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/render"
)

// The records below are the stored form of what the clips tables keep as
// JSON (projects.analysis and clips, projects.captions, sources.segments
// and signals, renders.options). Their keys are those of the rows already
// written, so renaming a domain field never changes what is stored or
// stops an old row from reading. Segments and signals were stored under
// their Go field names, which the tags keep. Records shaped like their
// domain type convert to and from it, so a field added there fails to
// compile here until storage decides on it. Nil slices stay nil both
// ways: the rows hold null for them, as they always did.

// analysisRecord's transcriptQuality is absent in rows written before it
// was measured; they read back as "" and are answered as high.
type analysisRecord struct {
	ContentType       string `json:"contentType"`
	SuggestedFormat   string `json:"suggestedFormat"`
	SuggestedStyle    string `json:"suggestedStyle"`
	TranscriptQuality string `json:"transcriptQuality,omitempty"`
	Engine            string `json:"engine"`
	// Absent in rows written before clips were scored in parts or
	// steered by a prompt.
	ScoreWeights *scoresRecord[float64] `json:"scoreWeights,omitempty"`
	Prompt       string                 `json:"prompt,omitempty"`
}

// scoresRecord is moments.Scores (int) or moments.ScoreWeights (float64).
type scoresRecord[T int | float64] struct {
	Hook  T `json:"hook"`
	Flow  T `json:"flow"`
	Value T `json:"value"`
	Trend T `json:"trend"`
}

type matchRecord struct {
	Matched bool     `json:"matched"`
	Terms   []string `json:"terms"`
	Quote   string   `json:"quote"`
}

func analysisRec(a moments.Analysis) analysisRecord {
	r := analysisRecord{ContentType: a.ContentType, SuggestedFormat: a.SuggestedFormat, SuggestedStyle: a.SuggestedStyle,
		TranscriptQuality: a.TranscriptQuality, Engine: a.Engine, Prompt: a.Prompt}
	if w := a.ScoreWeights; w != (moments.ScoreWeights{}) {
		r.ScoreWeights = &scoresRecord[float64]{Hook: w.Hook, Flow: w.Flow, Value: w.Value, Trend: w.Trend}
	}
	return r
}

func (r analysisRecord) domain() moments.Analysis {
	a := moments.Analysis{ContentType: r.ContentType, SuggestedFormat: r.SuggestedFormat, SuggestedStyle: r.SuggestedStyle,
		TranscriptQuality: r.TranscriptQuality, Engine: r.Engine, Prompt: r.Prompt}
	if w := r.ScoreWeights; w != nil {
		a.ScoreWeights = moments.ScoreWeights{Hook: w.Hook, Flow: w.Flow, Value: w.Value, Trend: w.Trend}
	}
	return a
}

type clipRecord struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	Start        float64        `json:"startTime"`
	End          float64        `json:"endTime"`
	Hook         string         `json:"hook"`
	Category     string         `json:"category"`
	ViralScore   int            `json:"viralScore"`
	HookStrength string         `json:"hookStrength"`
	PlatformFit  []string       `json:"platformFit"`
	Mood         string         `json:"mood"`
	Keywords     []string       `json:"keywords"`
	Features     featuresRecord `json:"features"`
	// Absent in rows written before: zero, none and nil.
	Scores  *scoresRecord[int] `json:"scores,omitempty"`
	Reasons []string           `json:"reasons,omitempty"`
	Match   *matchRecord       `json:"match,omitempty"`
}

type featuresRecord struct {
	Hook          float64 `json:"hook"`
	SelfContained float64 `json:"selfContained"`
	Salience      float64 `json:"salience"`
	Emotion       float64 `json:"emotion"`
	Pace          float64 `json:"pace"`
	Length        float64 `json:"length"`
	Energy        float64 `json:"energy"`
	Peaks         float64 `json:"peaks"`
	Scenes        float64 `json:"scenes"`
}

func clipRec(c moments.Clip) clipRecord {
	r := clipRecord{ID: c.ID, Title: c.Title, Start: c.Start, End: c.End, Hook: c.Hook, Category: c.Category, ViralScore: c.ViralScore,
		HookStrength: c.HookStrength, PlatformFit: c.PlatformFit, Mood: c.Mood, Keywords: c.Keywords, Features: featuresRecord(c.Features),
		Reasons: c.Reasons}
	if s := c.Scores; s != (moments.Scores{}) {
		r.Scores = &scoresRecord[int]{Hook: s.Hook, Flow: s.Flow, Value: s.Value, Trend: s.Trend}
	}
	if m := c.Match; m != nil {
		r.Match = &matchRecord{Matched: m.Matched, Terms: m.Terms, Quote: m.Quote}
	}
	return r
}

func (r clipRecord) domain() moments.Clip {
	c := moments.Clip{ID: r.ID, Title: r.Title, Start: r.Start, End: r.End, Hook: r.Hook, Category: r.Category, ViralScore: r.ViralScore,
		HookStrength: r.HookStrength, PlatformFit: r.PlatformFit, Mood: r.Mood, Keywords: r.Keywords, Features: moments.Features(r.Features),
		Reasons: r.Reasons}
	if s := r.Scores; s != nil {
		c.Scores = moments.Scores{Hook: s.Hook, Flow: s.Flow, Value: s.Value, Trend: s.Trend}
	}
	if m := r.Match; m != nil {
		c.Match = &moments.Match{Matched: m.Matched, Terms: m.Terms, Quote: m.Quote}
	}
	return c
}

// signalsRecord's Faces is absent in sources prepared before faces were
// sampled; their renders track the faces themselves.
type signalsRecord struct {
	Step   float64      `json:"Step"`
	Energy []float64    `json:"Energy"`
	Peaks  []float64    `json:"Peaks"`
	Scenes []float64    `json:"Scenes"`
	Faces  *facesRecord `json:"Faces,omitempty"`
}

// facesRecord is facetrack.Samples, compact: a face is [x0, y0, x1, y1,
// mouth opening × 1e5, or −1 when not measured], loudness (dBFS, and
// the K-weighted LUFS, absent in sources prepared before it was
// measured) is in tenths of a dB.
type facesRecord struct {
	Frames   [][][5]int `json:"f"`
	Loudness []int      `json:"l,omitempty"`
	Weighted []int      `json:"w,omitempty"`
}

// mouthScale is the fixed point of a stored mouth opening.
const mouthScale = 1e5

func signalsRec(sig moments.Signals, faces *facetrack.Samples) signalsRecord {
	rec := signalsRecord{Step: sig.Step, Energy: sig.Energy, Peaks: sig.Peaks, Scenes: sig.Scenes}
	if faces == nil {
		return rec
	}
	f := &facesRecord{Frames: make([][][5]int, len(faces.Frames))}
	for i, fr := range faces.Frames {
		f.Frames[i] = make([][5]int, len(fr))
		for k, face := range fr {
			open := -1
			if !math.IsNaN(face.Open) {
				open = int(math.Round(face.Open * mouthScale))
			}
			f.Frames[i][k] = [5]int{face.Box.Min.X, face.Box.Min.Y, face.Box.Max.X, face.Box.Max.Y, open}
		}
	}
	for _, db := range faces.Loudness {
		f.Loudness = append(f.Loudness, int(math.Round(db*10)))
	}
	for _, lufs := range faces.Weighted {
		f.Weighted = append(f.Weighted, int(math.Round(lufs*10)))
	}
	rec.Faces = f
	return rec
}

func (r signalsRecord) domain() (moments.Signals, *facetrack.Samples) {
	sig := moments.Signals{Step: r.Step, Energy: r.Energy, Peaks: r.Peaks, Scenes: r.Scenes}
	if r.Faces == nil {
		return sig, nil
	}
	faces := &facetrack.Samples{Frames: make([][]facetrack.Face, len(r.Faces.Frames))}
	for i, fr := range r.Faces.Frames {
		for _, f := range fr {
			open := math.NaN()
			if f[4] >= 0 {
				open = float64(f[4]) / mouthScale
			}
			faces.Frames[i] = append(faces.Frames[i], facetrack.Face{Box: image.Rect(f[0], f[1], f[2], f[3]), Open: open})
		}
	}
	for _, db := range r.Faces.Loudness {
		faces.Loudness = append(faces.Loudness, float64(db)/10)
	}
	for _, lufs := range r.Faces.Weighted {
		faces.Weighted = append(faces.Weighted, float64(lufs)/10)
	}
	return sig, faces
}

type segmentRecord struct {
	Start float64      `json:"Start"`
	End   float64      `json:"End"`
	Text  string       `json:"Text"`
	Words []wordRecord `json:"Words"`
}

// wordRecord's Confidence is absent in rows written before recognisers'
// confidences were kept; those words read back as certain.
type wordRecord struct {
	Start      float64  `json:"Start"`
	End        float64  `json:"End"`
	Text       string   `json:"Text"`
	Confidence *float64 `json:"Confidence,omitempty"`
}

func segmentRec(s videosite.Segment) segmentRecord {
	return segmentRecord{Start: s.Start, End: s.End, Text: s.Text, Words: mapSlice(s.Words, func(w videosite.Word) wordRecord {
		return wordRecord{Start: w.Start, End: w.End, Text: w.Text, Confidence: &w.Confidence}
	})}
}

func (r segmentRecord) domain() videosite.Segment {
	return videosite.Segment{Start: r.Start, End: r.End, Text: r.Text, Words: mapSlice(r.Words, func(w wordRecord) videosite.Word {
		conf := videosite.Certain
		if w.Confidence != nil {
			conf = *w.Confidence
		}
		return videosite.Word{Start: w.Start, End: w.End, Text: w.Text, Confidence: conf}
	})}
}

// optionsRecord's layout is absent in rows written before layouts; they
// read back as auto.
type optionsRecord struct {
	Music           bool   `json:"music"`
	MusicTrackID    string `json:"musicTrackId,omitempty"`
	Broll           bool   `json:"broll"`
	HookTitle       bool   `json:"hookTitle"`
	ProgressBar     bool   `json:"progressBar"`
	BrandFrame      bool   `json:"brandFrame"`
	EndCardText     string `json:"endCardText,omitempty"`
	KeywordEmphasis bool   `json:"keywordEmphasis"`
	RemoveSilences  bool   `json:"removeSilences,omitempty"`
	RemoveFillers   bool   `json:"removeFillers,omitempty"`
	AutoZoom        bool   `json:"autoZoom,omitempty"`

	// Layout frames the faces (auto, speaker, split, fill).
	Layout render.Layout `json:"layout,omitempty"`
	// Censor is absent in rows written before the profanity filter.
	Censor censor.Mode `json:"censor,omitempty"`
	// CaptionLanguage is absent for captions in the spoken language.
	CaptionLanguage string `json:"captionLanguage,omitempty"`
}

// translationRecord is renders.caption_translation.
type translationRecord struct {
	Engine   string `json:"engine"`
	Quality  string `json:"quality"`
	Language string `json:"language"`
}

// exportRecord is a render's export as renders.exports keeps it.
type exportRecord struct {
	Format render.ExportFormat `json:"format"`
	Key    string              `json:"key"`
}

// mapSlice maps each element with f, keeping nil nil.
func mapSlice[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
