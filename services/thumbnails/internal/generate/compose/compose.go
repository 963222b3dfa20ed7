// Package compose is the local image engine: a layered compositor that
// draws a real thumbnail offline, deterministic for a seed. libvips
// (govips) decodes, cover-crops, blurs and encodes; backgrounds and
// shapes are drawn in Go, and text, outlines and shadows with pkg/media/imaging
// and the fonts of pkg/media/fonts, so that one seed gives the same bytes on
// every host.
//
// A picture is built bottom-up: a background (a generated gradient,
// glow, split, stripes or sunburst in the palette's colours, or a
// reference picture blurred and tinted), the faces cut out with outline
// and shadow, a colour grade with vignette, accents (arrows aimed at the
// face, rings, badges, bars, bursts, frames) and the text slots, the
// headline auto-fitted with stroke, shadow and a highlighted key word.
package compose

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"sort"
	"strings"

	"hookline.dev/services/thumbnails/internal/textai"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/fluentemoji"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/generate/scene"
	"hookline.dev/services/thumbnails/internal/libvips"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Options configures the compositor.
type Options struct {
	// Quality is the JPEG quality (0: 88).
	Quality int
	// Art is the object art drawn for the things a prompt names; nil
	// draws none (and the result's Applied lists none).
	Art *fluentemoji.Library
}

// Engine is the local compositor; it implements engine.Engine. It holds
// no per-request state and is safe for concurrent use.
type Engine struct {
	quality  int
	art      *fluentemoji.Library
	builtins []builtin
	arts     *artCache
	sample   engine.Picture
}

type builtin struct {
	name string
	l    layout.Layout
}

var _ engine.Engine = (*Engine)(nil)

// New starts the compositor, and libvips if it is not started yet.
func New(o Options) (*Engine, error) {
	if o.Quality <= 0 {
		o.Quality = 88
	}
	if o.Quality > 100 {
		return nil, fmt.Errorf("compose: quality %d above 100", o.Quality)
	}
	libvips.Start()
	e := &Engine{quality: o.Quality, art: o.Art, arts: &artCache{m: map[string]*image.RGBA{}}}
	for name, doc := range builtinLayouts {
		l, err := layout.Parse([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("compose: built-in layout %s: %w", name, err)
		}
		e.builtins = append(e.builtins, builtin{name: name, l: l})
	}
	// Map order is random; the seed must pick the same layout every time.
	sort.Slice(e.builtins, func(i, j int) bool { return e.builtins[i].name < e.builtins[j].name })
	sample, err := sampleFace()
	if err != nil {
		return nil, err
	}
	e.sample = sample
	return e, nil
}

// Name is "local".
func (*Engine) Name() string { return "local" }

// Generate draws req. Content never fails it: a prompt without keywords
// still gets a composition. Errors: ctx's, or a fault decoding an input
// picture or encoding the result.
func (e *Engine) Generate(ctx context.Context, req engine.Request) (engine.Result, error) {
	return e.render(ctx, req, false)
}

// Vary draws a variation of req.Parent: the seed picks another layout,
// palette rotation, wording and crop, and may take the parent, blurred,
// as the background. Errors as Generate.
func (e *Engine) Vary(ctx context.Context, req engine.Request) (engine.Result, error) {
	return e.render(ctx, req, false)
}

// Preview draws the preview image of a template named name: its layout
// filled with sample content (the slots' sample text, a drawn stand-in
// face), with a seed derived from the name so that it is stable.
func (e *Engine) Preview(ctx context.Context, name string, l layout.Layout, a thumbnail.Aspect) (engine.Result, error) {
	h := fnv.New64a()
	h.Write([]byte(name))
	req := engine.Request{Aspect: a, Seed: h.Sum64(), Template: &l}
	if t, ok := l.Text(layout.SlotHeadline); ok && t.Text != "" {
		req.Headline = t.Text
	} else {
		req.Headline = name
	}
	if l.Face != nil {
		req.Faces = []engine.Face{{Name: "sample", Crop: e.sample}}
	}
	return e.render(ctx, req, true)
}

// render is the whole pipeline. With sample set (a preview), slots the
// request leaves empty show their sample text.
func (e *Engine) render(ctx context.Context, req engine.Request, sample bool) (engine.Result, error) {
	if err := ctx.Err(); err != nil {
		return engine.Result{}, err
	}
	aspect := req.Aspect
	if !aspect.Valid() {
		aspect = thumbnail.Landscape
	}
	w, h := aspect.Size()
	short := min(w, h)
	rng := rand.New(rand.NewPCG(req.Seed, 0x636f6d706f7365)) //nolint:gosec // G404: design choices, reproducible by seed, not secrets
	l, isBuiltin := e.pick(req, aspect, rng)
	if l.Aspect != string(aspect) {
		transpose(&l)
	}
	var (
		sc      scene.Scene
		nouns   []string
		boxes   sceneBoxes
		applied []string
	)
	if !sample {
		sc = e.sceneOf(req)
	}
	if isBuiltin {
		nouns = e.objectNouns(sc)
		// A number goes big beside a headline that does not say it (a
		// derived one does: numbers are what it keeps first).
		q := givenHeadline(req)
		number := sc.Number != "" && q != "" && !strings.Contains(strings.ToUpper(q), sc.Number)
		boxes = fitScene(&l, sc, len(nouns), number, len(req.Faces) > 0, aspect == thumbnail.Portrait, w, h)
	}
	p := resolvePalette(req, l, isBuiltin, rng)
	applied = append(applied, sceneColours(p, sc, req)...)
	applied = append(applied, boxes.placed...)
	bgPic := backgroundPicture(req, l, isBuiltin, rng)
	if bgPic != nil {
		l.Background.Kind = layout.BgReference
	}
	// A small, seeded turn of the background and shift of the vignette:
	// two seeds never share pixels even when every other choice agrees
	// (the turn alone does nothing to a radial or a picture background).
	l.Background.Angle += rng.Float64()*24 - 12
	vigShift := image.Pt(rng.IntN(2*vignetteSlack+1)-vignetteSlack, rng.IntN(2*vignetteSlack+1)-vignetteSlack)

	// Text blocks do not depend on the pictures under them: they are set
	// on their own layers while the background and faces are drawn, and
	// laid over at the end.
	var (
		texts   []*placed
		textErr error
		textsOK = make(chan struct{})
	)
	// The badge word the prompt asks for, when a badge will show it: it
	// moves out of a derived headline onto the badge (a headline the
	// request brings keeps its words, and no badge repeats them).
	text := req.Prompt
	if req.Tweak != "" {
		text = req.Tweak + " " + req.Prompt
	}
	asked := ""
	for _, a := range l.Accents {
		if a.AutoText {
			asked = badgeWord(text, strings.Fields(givenHeadline(req)))
		}
	}
	// The headline comes from the prompt's topic: its words without the
	// art direction (or the words it quotes).
	treq := req
	treq.Headline = givenHeadline(req)
	if !sample {
		treq.Prompt, treq.Tweak = e.topics(req)
		if treq.Headline == "" {
			// A comparison is the hook: its two sides are the headline.
			treq.Headline = comparisonHeadline(sc)
		}
	}
	jobs := textJobs(treq, l, rng, w, h, sample, asked)
	if q := givenHeadline(req); q != "" && req.Headline == "" {
		applied = append(applied, fmt.Sprintf("headline %q", q))
	}
	go func() {
		defer close(textsOK)
		for _, job := range jobs {
			pl, err := renderText(job, p, short)
			if err != nil {
				textErr = err
				return
			}
			texts = append(texts, pl)
		}
	}()
	// Every return below waits for the text, so that no goroutine
	// outlives the call.
	defer func() { <-textsOK }()

	canvas := image.NewRGBA(image.Rect(0, 0, w, h))
	if bgPic != nil {
		sigma := 1 + l.Background.Blur*8
		bg, err := blurCover(bgPic.Data, w, h, sigma)
		if err != nil {
			return engine.Result{}, err
		}
		canvas = bg
		tint(canvas, p[l.Background.Colors[0]], 0.25+0.5*l.Background.Dim)
	} else {
		paintBackground(canvas, l.Background, p)
	}
	if err := ctx.Err(); err != nil {
		return engine.Result{}, err
	}

	faces := req.Faces
	if len(faces) > maxFaces {
		faces = faces[:maxFaces]
	}
	var (
		aim  *image.Point     // where accents aimed at the face point
		from *image.Rectangle // the main face's box, for an arrow from it
	)
	if l.Face != nil && len(faces) > 0 {
		zoom := 1 + rng.Float64()*0.1
		if sc.CloseUp {
			zoom += 0.2
			applied = append(applied, "close-up")
		}
		rects := faceRects(boxPx(l.Face.Box, w, h), len(faces), l.Face.Side, zoom)
		// The first face is drawn last, on top: it is the main one.
		for i := len(faces) - 1; i >= 0; i-- {
			if err := drawFace(canvas, faces[i], rects[i], *l.Face, p); err != nil {
				return engine.Result{}, err
			}
		}
		r := rects[0]
		aim = &image.Point{X: (r.Min.X + r.Max.X) / 2, Y: r.Min.Y + r.Dy()*2/5}
		from = &r
	} else if l.Face != nil {
		widenTexts(&l)
	}
	gradeCanvas(canvas, lookFor(l.Grade, req.Style), vigShift)
	if err := ctx.Err(); err != nil {
		return engine.Result{}, err
	}

	drawn, err := e.drawScene(canvas, sc, nouns, boxes, from, jobs, p, short)
	if err != nil {
		return engine.Result{}, err
	}
	applied = append(applied, drawn...)
	for _, a := range l.Accents {
		if a.AimFace && sc.Pointing && len(nouns) > 0 {
			continue // the arrow runs from the face to the object instead
		}
		j := accentJob{a: a, box: boxPx(a.Box, w, h), word: a.Text, short: short}
		if a.AutoText && asked != "" {
			j.word = asked
		}
		if a.WhenAsked && asked == "" && (!sample || a.Text == "") {
			continue // nothing asks for it: the space stays the picture's
		}
		if a.AimFace {
			if aim == nil {
				continue // nothing to point at
			}
			j.aim = aim
		}
		if err := drawAccent(canvas, j, p); err != nil {
			return engine.Result{}, err
		}
	}
	<-textsOK
	if textErr != nil {
		return engine.Result{}, textErr
	}
	for _, pl := range texts {
		if pl != nil {
			pl.layer.Draw(canvas, pl.at)
		}
	}
	if err := ctx.Err(); err != nil {
		return engine.Result{}, err
	}
	data, err := libvips.EncodeJPEG(canvas, e.quality)
	if err != nil {
		return engine.Result{}, fmt.Errorf("compose: %w", err)
	}
	if applied == nil {
		applied = []string{}
	}
	return engine.Result{Data: data, ContentType: "image/jpeg", Width: w, Height: h, Applied: applied}, nil
}

// pick is the layout to draw: the template's, or a built-in one designed
// for the aspect, chosen by the seed. It is a copy the caller may change.
func (e *Engine) pick(req engine.Request, a thumbnail.Aspect, rng *rand.Rand) (layout.Layout, bool) {
	if req.Template != nil {
		return cloneLayout(*req.Template), false
	}
	var fit []layout.Layout
	for _, b := range e.builtins {
		if b.l.Aspect == string(a) {
			fit = append(fit, b.l)
		}
	}
	return cloneLayout(fit[rng.IntN(len(fit))]), true
}

func cloneLayout(l layout.Layout) layout.Layout {
	c := l
	c.Texts = append([]layout.Text(nil), l.Texts...)
	c.Accents = append([]layout.Accent(nil), l.Accents...)
	c.Background.Colors = append([]layout.Role(nil), l.Background.Colors...)
	if l.Face != nil {
		f := *l.Face
		c.Face = &f
	}
	return c
}

// backgroundPicture is the picture the background is made from, if any:
// a reference image, or a variation's parent. A template uses one only
// when its background is a reference; a built-in layout always takes a
// reference, and a parent on every other seed.
func backgroundPicture(req engine.Request, l layout.Layout, isBuiltin bool, rng *rand.Rand) *engine.Picture {
	useParent := req.Parent != nil && rng.IntN(2) == 0
	if !isBuiltin && l.Background.Kind != layout.BgReference {
		return nil
	}
	switch {
	case len(req.References) > 0:
		return &req.References[0]
	case req.Parent != nil && (useParent || !isBuiltin):
		return req.Parent
	}
	return nil
}

// transpose turns a layout designed for one aspect into the other by
// swapping axes: what sat side by side stacks, and the face stands at the
// bottom, centred.
func transpose(l *layout.Layout) {
	tb := func(b layout.Box) layout.Box { return layout.Box{X: b.Y, Y: b.X, W: b.H, H: b.W} }
	bg := &l.Background
	bg.Angle = 90 - bg.Angle
	bg.CenterX, bg.CenterY = bg.CenterY, bg.CenterX
	for i := range l.Texts {
		l.Texts[i].Box = tb(l.Texts[i].Box)
	}
	for i := range l.Accents {
		a := &l.Accents[i]
		a.Box = tb(a.Box)
		a.Angle = 90 - a.Angle
	}
	if l.Face != nil {
		l.Face.Box = tb(l.Face.Box)
		l.Face.Side = layout.SideCenter
	}
	if l.Aspect == layout.Portrait {
		l.Aspect = layout.Landscape
	} else {
		l.Aspect = layout.Portrait
	}
}

// widenTexts gives an empty face slot's room to the text beside it: a
// text box level with the face box grows across it.
func widenTexts(l *layout.Layout) {
	f := l.Face.Box
	for i := range l.Texts {
		t := &l.Texts[i].Box
		levels := t.Y < f.Y+f.H && f.Y < t.Y+t.H
		beside := t.X+t.W <= f.X+1e-9 || f.X+f.W <= t.X+1e-9
		if !levels || !beside {
			continue
		}
		x0 := min(t.X, f.X)
		x1 := max(t.X+t.W, f.X+f.W)
		// Keep a margin from the canvas edge.
		x0, x1 = max(x0, 0.04), min(x1, 0.96)
		t.X, t.W = x0, x1-x0
		if l.Texts[i].Align == layout.AlignLeft || l.Texts[i].Align == layout.AlignRight {
			l.Texts[i].Align = layout.AlignCenter
		}
	}
}

// textJobs fills the layout's text slots: the headline from the request
// (or derived from its prompt), the subline from the prompt's other
// keywords when there are at least two (one stray word reads as noise),
// any other slot with its own text. A subline shows its sample text in a
// preview, or when the request brings no text at all (a remix as is).
func textJobs(req engine.Request, l layout.Layout, rng *rand.Rand, w, h int, sample bool, badge string) []textJob {
	sample = sample || strings.TrimSpace(req.Prompt+req.Headline+req.Tweak) == ""
	var jobs []textJob
	var head headline
	for _, t := range l.Texts {
		if t.Name == layout.SlotHeadline {
			head = headlineFor(req, t, rng, badge)
		}
	}
	for _, t := range l.Texts {
		job := textJob{slot: t, highlight: -1, box: boxPx(t.Box, w, h)}
		switch t.Name {
		case layout.SlotHeadline:
			job.words, job.highlight = head.words, head.highlight
		case layout.SlotSubline:
			n := t.MaxWords
			if n == 0 {
				n = 4
			}
			job.words = subline(req.Prompt, append(strings.Fields(badge), head.words...), n)
			if len(job.words) < 2 {
				job.words = nil
				if sample {
					job.words = strings.Fields(t.Text)
				}
			}
		default:
			job.words = strings.Fields(t.Text)
		}
		jobs = append(jobs, job)
	}
	return jobs
}

// givenHeadline is the headline the request brings: its own, else the
// words its prompt quotes; "" when it is to be derived.
func givenHeadline(req engine.Request) string {
	if req.Headline != "" {
		return req.Headline
	}
	return textai.QuotedHeadline(req.Tweak + " " + req.Prompt)
}

// headlineFor is the headline's words: the request's own (its strongest
// word highlighted), else derived from tweak and prompt without the words
// of badge (a badge shows them), else the slot's sample, a brand's or a
// style's name.
func headlineFor(req engine.Request, t layout.Text, rng *rand.Rand, badge string) headline {
	if words := strings.Fields(givenHeadline(req)); len(words) > 0 {
		if len(words) > 12 {
			words = words[:12]
		}
		best, h := -1.0, headline{words: words}
		for i, w := range words {
			if s := wordScore(w); s > best {
				best, h.highlight = s, i
			}
		}
		return h
	}
	if h := deriveHeadline(req.Prompt, req.Tweak, rng.Uint64(), t.MaxWords, strings.Fields(strings.ToLower(badge))...); len(h.words) > 0 {
		return h
	}
	fallback := t.Text
	switch {
	case fallback != "":
	case req.Brand != nil && req.Brand.Name != "":
		fallback = req.Brand.Name
	case req.Style != nil && req.Style.Name != "":
		fallback = req.Style.Name
	default:
		fallback = "watch this"
	}
	return headline{words: strings.Fields(fallback), highlight: -1}
}

// sampleFace draws the stand-in face previews show in a face slot: a
// flat, friendly avatar on a transparent ground, so that a preview shows
// where and how big a face goes without shipping anyone's photo.
func sampleFace() (engine.Picture, error) {
	const s = 512
	img := image.NewRGBA(image.Rect(0, 0, s, s))
	r := img.Rect
	skin, hair, shirt := color.RGBA{241, 194, 160, 255}, color.RGBA{52, 36, 30, 255}, color.RGBA{40, 44, 60, 255}
	eye := color.RGBA{30, 30, 36, 255}
	paint(img, shapeMask(r, func(z *pen) { z.roundRect(image.Rect(56, 380, 456, 640), 150) }), shirt)
	paint(img, shapeMask(r, func(z *pen) { z.roundRect(image.Rect(206, 300, 306, 420), 30) }), skin)
	paint(img, shapeMask(r, func(z *pen) { z.ellipse(256, 196, 126, 150, false) }), hair)
	paint(img, shapeMask(r, func(z *pen) { z.ellipse(256, 226, 112, 134, false) }), skin)
	paint(img, shapeMask(r, func(z *pen) {
		z.ellipse(212, 214, 13, 17, false)
		z.ellipse(300, 214, 13, 17, false)
	}), eye)
	// An open, surprised mouth: the thumbnail face.
	paint(img, shapeMask(r, func(z *pen) { z.ellipse(256, 300, 30, 36, false) }), color.RGBA{120, 30, 40, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return engine.Picture{}, fmt.Errorf("compose: sample face: %w", err)
	}
	return engine.Picture{Data: buf.Bytes(), Img: img}, nil
}
