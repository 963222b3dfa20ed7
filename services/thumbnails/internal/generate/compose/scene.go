package compose

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"slices"
	"strings"
	"sync"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/generate/scene"
)

// The prompt's art direction (package scene) steers a request without a
// template: its colours take the palette's roles unless a brand or a
// style names colours; its grade replaces the layout's; the objects it
// names are drawn large with an outline, a shadow and a glow; a
// comparison draws two sides; a number or a sum is set big; "pointing
// at" aims an arrow from the face to the object; "text on the left"
// moves the headline there.

// sceneOf reads the art direction of req's tweak and prompt (the
// tweak's first: a variation's change wins).
func (e *Engine) sceneOf(req engine.Request) scene.Scene {
	o := scene.Options{}
	if e.art != nil {
		o.Object = e.art.Names
	}
	text := req.Prompt
	if req.Tweak != "" {
		text = req.Tweak + ", " + req.Prompt
	}
	return scene.Parse(text, o)
}

// topics are the prompt and tweak without their art direction: what a
// headline is derived from.
func (e *Engine) topics(req engine.Request) (prompt, tweak string) {
	o := scene.Options{}
	if e.art != nil {
		o.Object = e.art.Names
	}
	return scene.Parse(req.Prompt, o).Topic, scene.Parse(req.Tweak, o).Topic
}

// sceneColours gives the prompt's colours and mood to p, and says what
// it used. A brand's or a style's colours win: then it does nothing.
func sceneColours(p layout.Palette, sc scene.Scene, req engine.Request) []string {
	if req.Brand != nil && len(req.Brand.Colors) > 0 || req.Style != nil && len(req.Style.Palette) > 0 {
		return nil
	}
	var applied []string
	white := color.RGBA{255, 255, 255, 255}
	switch sc.Mood {
	case "dark":
		p[layout.RoleBackground] = shade(p[layout.RoleBackground], 0.7)
		p[layout.RoleBackground2] = shade(p[layout.RoleBackground2], 0.55)
	case "neon":
		p[layout.RoleBackground] = color.RGBA{8, 4, 20, 255}
		p[layout.RoleBackground2] = shade(vivify(p[layout.RolePrimary]), 0.35)
		p[layout.RolePrimary], p[layout.RoleAccent] = vivify(p[layout.RolePrimary]), vivify(p[layout.RoleAccent])
	case "pastel":
		p[layout.RoleBackground] = mix(p[layout.RolePrimary], white, 0.62)
		p[layout.RoleBackground2] = mix(p[layout.RoleAccent], white, 0.7)
	case "bright":
		p[layout.RoleBackground2] = vivify(p[layout.RoleBackground2])
	}
	if sc.Mood != "" {
		applied = append(applied, "mood "+sc.Mood)
	}
	if c := sc.Background; c != nil {
		bg := c.RGB
		if _, _, v := hsv(bg); sc.Mood == "dark" && v > 0.6 {
			bg = shade(bg, 0.55) // a dark colour ("navy") is dark enough
		}
		p[layout.RoleBackground] = bg
		p[layout.RoleBackground2] = bgPartner(bg)
		if hueDistance(p[layout.RolePrimary], bg) < 40 || saturation(bg) < 0.15 {
			p[layout.RolePrimary] = complement(bg)
		}
		applied = append(applied, "background "+c.Name)
	}
	if c := sc.Accent; c != nil {
		p[layout.RoleAccent] = c.RGB
		applied = append(applied, "accent "+c.Name)
	} else if sc.Background != nil && hueDistance(p[layout.RoleAccent], p[layout.RoleBackground]) < 40 {
		p[layout.RoleAccent] = complement(p[layout.RoleBackground])
	}
	if c := sc.Text; c != nil {
		p[layout.RoleText] = c.RGB
		applied = append(applied, "text "+c.Name)
	}
	keepTextReadable(p)
	return applied
}

// bgPartner is the second background colour beside bg: the same hue,
// a step darker (a light bg) or lighter (a dark one), so that a gradient
// stays the colour asked for.
func bgPartner(bg color.RGBA) color.RGBA {
	if imaging.Luma(bg.R, bg.G, bg.B) > 0.45*255 {
		return shade(bg, 0.72)
	}
	return mix(bg, color.RGBA{255, 255, 255, 255}, 0.22)
}

// keepTextReadable gives the text the stroke that contrasts with it
// most (dark under light text, light under dark), and a text colour
// that contrasts with a background of its own colour.
func keepTextReadable(p layout.Palette) {
	t, bg := p[layout.RoleText], p[layout.RoleBackground]
	lt, lb := imaging.Luma(t.R, t.G, t.B), imaging.Luma(bg.R, bg.G, bg.B)
	if math.Abs(lt-lb) < 0.2*255 && hueDistance(t, bg) < 30 {
		// Text the colour of the ground: white or near black, whichever
		// reads.
		if lb > 0.5*255 {
			p[layout.RoleText] = color.RGBA{12, 12, 16, 255}
		} else {
			p[layout.RoleText] = color.RGBA{255, 255, 255, 255}
		}
		t = p[layout.RoleText]
		lt = imaging.Luma(t.R, t.G, t.B)
	}
	if lt > 0.5*255 {
		p[layout.RoleStroke] = color.RGBA{10, 10, 12, 255}
	} else {
		p[layout.RoleStroke] = color.RGBA{255, 255, 255, 255}
	}
}

// sceneBoxes are where fitScene makes room for the scene's things.
type sceneBoxes struct {
	objects []image.Rectangle // one per object to draw, in pixels
	vs      image.Rectangle   // the badge between two sides
	placed  []string          // the placements done, for Applied: "text left", "subject right"
}

// fitScene fits the built-in layout l to sc (number: a big number is to
// be drawn): the colours of a named background on every background
// kind, the grade asked for, room for the objects, and the text where
// the prompt puts it. With objects, a face or
// not, the headline takes the top (or the side the prompt names) and the
// object the space beside the face; a comparison splits the background
// in two with an object (or its words) on each side.
func fitScene(l *layout.Layout, sc scene.Scene, nObjects int, number, face, portrait bool, w, h int) sceneBoxes {
	var b sceneBoxes
	if sc.Background != nil {
		l.Background.Colors = []layout.Role{layout.RoleBackground, layout.RoleBackground2}
		if l.Background.Kind == layout.BgSplit {
			l.Background.Kind = layout.BgGradient
		}
	}
	if sc.Grade != "" {
		l.Grade = layout.Grade(sc.Grade)
	}
	head := -1
	for i, t := range l.Texts {
		if t.Name == layout.SlotHeadline {
			head = i
		}
	}
	big := nObjects > 0 || number
	switch {
	case sc.Compare != nil && !portrait:
		l.Background = layout.Background{Kind: layout.BgSplit, Colors: []layout.Role{layout.RoleBackground, layout.RolePrimary, layout.RoleText},
			Angle: 84, CenterX: 0.5, CenterY: 0.5, Blur: 0.5, Dim: 0.3}
		l.Texts = []layout.Text{l.Texts[head]}
		l.Texts[0].Box = layout.Box{X: 0.04, Y: 0.03, W: 0.92, H: 0.3}
		l.Texts[0].Align, l.Texts[0].VAlign, l.Texts[0].MaxLines = layout.AlignCenter, layout.VAlignMiddle, 2
		l.Accents = nil
		if l.Face != nil {
			l.Face.Box, l.Face.Side, l.Face.Shape = layout.Box{X: 0.36, Y: 0.5, W: 0.28, H: 0.5}, layout.SideCenter, layout.ShapeCircle
		}
		b.objects = []image.Rectangle{boxPx(layout.Box{X: 0.05, Y: 0.34, W: 0.3, H: 0.62}, w, h), boxPx(layout.Box{X: 0.65, Y: 0.34, W: 0.3, H: 0.62}, w, h)}
		b.vs = boxPx(layout.Box{X: 0.42, Y: 0.36, W: 0.16, H: 0.22}, w, h)
		if l.Face != nil && face {
			b.vs = boxPx(layout.Box{X: 0.43, Y: 0.33, W: 0.14, H: 0.18}, w, h)
		}
		if sc.TextAt == "top" || sc.TextAt == "center" {
			// The headline is centred across the top already.
			b.placed = append(b.placed, "text "+sc.TextAt)
		}
		return b
	case big && portrait:
		// The headline on top, the object under it, the face at the
		// bottom right, turned towards it.
		l.Texts = []layout.Text{l.Texts[head]}
		l.Texts[0].Box, l.Texts[0].Align, l.Texts[0].VAlign = layout.Box{X: 0.06, Y: 0.04, W: 0.88, H: 0.27}, layout.AlignCenter, layout.VAlignMiddle
		slot := layout.Box{X: 0.2, Y: 0.34, W: 0.6, H: 0.3}
		if l.Face != nil && face {
			slot = layout.Box{X: 0.05, Y: 0.33, W: 0.5, H: 0.28}
			l.Face.Box, l.Face.Side, l.Face.Shape = layout.Box{X: 0.28, Y: 0.56, W: 0.72, H: 0.44}, layout.SideRight, layout.ShapeCutout
		} else {
			l.Face = nil
		}
		l.Accents = nil
		if l.Background.Kind == layout.BgReference {
			l.Background.Kind = layout.BgGradient
		}
		b.objects = []image.Rectangle{boxPx(slot, w, h)}
	case big:
		text := layout.Box{X: 0.04, Y: 0.05, W: 0.5, H: 0.42}
		slot := layout.Box{X: 0.07, Y: 0.47, W: 0.44, H: 0.5}
		if !face || l.Face == nil {
			text = layout.Box{X: 0.04, Y: 0.08, W: 0.52, H: 0.84}
			slot = layout.Box{X: 0.58, Y: 0.08, W: 0.38, H: 0.84}
			if l.Face != nil {
				l.Face = nil
			}
		} else {
			l.Face.Box, l.Face.Side, l.Face.Shape = layout.Box{X: 0.52, Y: 0.04, W: 0.46, H: 0.96}, layout.SideRight, layout.ShapeCutout
		}
		l.Texts = []layout.Text{l.Texts[head]}
		l.Texts[0].Box, l.Texts[0].Align, l.Texts[0].VAlign = text, layout.AlignLeft, layout.VAlignMiddle
		l.Texts[0].MaxLines = 0
		l.Accents = keepAccents(l.Accents, slot)
		if l.Background.Kind == layout.BgReference {
			l.Background.Kind = layout.BgGradient
		}
		b.objects = []image.Rectangle{boxPx(slot, w, h)}
	}
	if at := sc.SubjectAt; at != "" && at != "center" && l.Face != nil && face && !portrait {
		if cx := l.Face.Box.X + l.Face.Box.W/2; at == "left" && cx > 0.55 || at == "right" && cx < 0.45 {
			mirrorAll(l, &b, w)
		}
		// Claimed only where the face now stands (a centred one stays).
		if cx := l.Face.Box.X + l.Face.Box.W/2; at == "left" && cx < 0.45 || at == "right" && cx > 0.55 {
			b.placed = append(b.placed, "subject "+at)
		}
	}
	if sc.TextAt != "" && head >= 0 && !portrait {
		placeText(l, sc.TextAt, &b, w)
		b.placed = append(b.placed, "text "+sc.TextAt)
	}
	return b
}

// keepAccents drops the accents that would cover slot (an arrow aimed
// at the face stays: it points past).
func keepAccents(as []layout.Accent, slot layout.Box) []layout.Accent {
	var out []layout.Accent
	for _, a := range as {
		o := a.Box
		if o.X < slot.X+slot.W && slot.X < o.X+o.W && o.Y < slot.Y+slot.H && slot.Y < o.Y+o.H {
			continue
		}
		out = append(out, a)
	}
	return out
}

// placeText moves the headline to side at: a left/right wish mirrors the
// layout when the headline stands on the other side; top or bottom
// moves it to that band.
func placeText(l *layout.Layout, at string, b *sceneBoxes, w int) {
	var head *layout.Text
	for i := range l.Texts {
		if l.Texts[i].Name == layout.SlotHeadline {
			head = &l.Texts[i]
		}
	}
	cx := head.Box.X + head.Box.W/2
	wantLeft, wantRight := strings.HasSuffix(at, "left"), strings.HasSuffix(at, "right")
	if wantLeft && cx > 0.55 || wantRight && cx < 0.45 {
		mirrorAll(l, b, w)
	}
	switch {
	case strings.HasPrefix(at, "top"):
		head.Box.Y, head.VAlign = 0.04, layout.VAlignTop
		head.Box.H = min(head.Box.H, 0.46)
	case strings.HasPrefix(at, "bottom"):
		head.Box.H = min(head.Box.H, 0.46)
		head.Box.Y, head.VAlign = 0.96-head.Box.H, layout.VAlignBottom
		// An object under the headline's old place goes over it instead.
		top := int(head.Box.Y * float64(w) * 9 / 16)
		for i, r := range b.objects {
			if r.Max.Y > top {
				b.objects[i] = r.Sub(image.Pt(0, r.Min.Y-int(0.03*float64(w)*9/16)))
			}
		}
	case at == "center":
		head.Align, head.VAlign = layout.AlignCenter, layout.VAlignMiddle
	}
	if wantLeft {
		head.Align = layout.AlignLeft
	}
	if wantRight {
		head.Align = layout.AlignRight
	}
}

// mirrorAll flips l and the boxes b of a canvas w wide left to right.
func mirrorAll(l *layout.Layout, b *sceneBoxes, w int) {
	mirror(l)
	for i, r := range b.objects {
		b.objects[i] = image.Rect(w-r.Max.X, r.Min.Y, w-r.Min.X, r.Max.Y)
	}
}

// mirror flips l left to right.
func mirror(l *layout.Layout) {
	flip := func(b *layout.Box) { b.X = 1 - b.X - b.W }
	for i := range l.Texts {
		flip(&l.Texts[i].Box)
		switch l.Texts[i].Align {
		case layout.AlignLeft:
			l.Texts[i].Align = layout.AlignRight
		case layout.AlignRight:
			l.Texts[i].Align = layout.AlignLeft
		}
	}
	for i := range l.Accents {
		flip(&l.Accents[i].Box)
		l.Accents[i].Angle = 180 - l.Accents[i].Angle
	}
	if l.Face != nil {
		flip(&l.Face.Box)
		switch l.Face.Side {
		case layout.SideLeft:
			l.Face.Side = layout.SideRight
		case layout.SideRight:
			l.Face.Side = layout.SideLeft
		}
	}
	l.Background.CenterX = 1 - l.Background.CenterX
	l.Background.Angle = 180 - l.Background.Angle
}

// objectNouns are the objects to draw: the two sides' of a comparison,
// else the scene's first two that have art (the one pointed at first).
func (e *Engine) objectNouns(sc scene.Scene) []string {
	if e.art == nil {
		return nil
	}
	if sc.Compare != nil {
		return []string{e.sideNoun(sc.Compare.Left, sc), e.sideNoun(sc.Compare.Right, sc)}
	}
	var out []string
	nouns := sc.Objects
	if sc.PointAt != "" {
		nouns = append([]string{sc.PointAt}, slices.DeleteFunc(slices.Clone(nouns), func(n string) bool { return n == sc.PointAt })...)
	}
	for _, n := range nouns {
		if _, _, ok, _ := e.art.Find(n); ok {
			out = append(out, n)
		}
		if len(out) == 1 {
			break
		}
	}
	return out
}

// sideNoun is the noun of a comparison's side with art ("" when none;
// the side's words are then set as text): its words' last that has
// art, or for before and after, the scene's first object.
func (e *Engine) sideNoun(side string, sc scene.Scene) string {
	if sc.Compare.Kind == "before-after" {
		for _, n := range sc.Objects {
			if _, _, ok, _ := e.art.Find(n); ok {
				return n
			}
		}
		return ""
	}
	ws := strings.Fields(strings.ToLower(side))
	if n := len(ws); n > 1 {
		ws = append(ws, ws[n-2]+"-"+ws[n-1]) // "credit card", first
	}
	for i := len(ws) - 1; i >= 0; i-- {
		n := strings.TrimSuffix(ws[i], "s")
		for _, c := range []string{ws[i], n} {
			if _, _, ok, _ := e.art.Find(c); ok {
				return c
			}
		}
	}
	return ""
}

// drawObject draws the art of noun into box r, as large as fits, with a
// glow of the accent colour behind it, a white outline and a drop
// shadow; faded greys it (a "before").
func (e *Engine) drawObject(canvas *image.RGBA, noun string, r image.Rectangle, p layout.Palette, faded bool) (bool, error) {
	s := min(r.Dx(), r.Dy())
	art, ok, err := e.artAt(noun, s)
	if err != nil || !ok {
		return false, err
	}
	at := image.Pt(r.Min.X+(r.Dx()-s)/2, r.Min.Y+(r.Dy()-s)/2)
	// A view of the shared picture, moved to its place; a faded one is
	// a copy.
	big := &image.RGBA{Pix: art.Pix, Stride: art.Stride, Rect: art.Rect.Add(at)}
	if faded {
		big.Pix = slices.Clone(art.Pix)
		for i := 0; i < len(big.Pix); i += 4 {
			g := uint8((uint32(big.Pix[i])*30 + uint32(big.Pix[i+1])*59 + uint32(big.Pix[i+2])*11) / 100) //nolint:gosec // G115: weights sum to 100, so the mean of 8-bit samples
			big.Pix[i], big.Pix[i+1], big.Pix[i+2] = g, g, g
		}
	}
	short := float64(min(canvas.Rect.Dx(), canvas.Rect.Dy()))
	area := big.Rect.Inset(-int(short * 0.08)).Intersect(canvas.Rect)
	mask := image.NewAlpha(area)
	in := big.Rect.Intersect(area)
	for y := in.Min.Y; y < in.Max.Y; y++ {
		dst := mask.Pix[mask.PixOffset(in.Min.X, y):]
		src := big.Pix[big.PixOffset(in.Min.X, y):]
		for x := range in.Dx() {
			dst[x] = src[x*4+3]
		}
	}
	cx, cy := float64(at.X+s/2), float64(at.Y+s/2)
	if !faded {
		glowOver(canvas, p[layout.RoleAccent], cx, cy, float64(s)*0.62)
	}
	outline := imaging.Dilate(mask, short*0.012)
	shadowUnder(canvas, outline, float64(s)*0.3)
	paint(canvas, outline, color.RGBA{255, 255, 255, 255})
	draw.Draw(canvas, big.Rect, big, big.Rect.Min, draw.Over)
	return true, nil
}

// artCacheSize bounds the pictures artAt keeps: a few dozen objects at
// the sizes the layouts draw them (about 1 MB each).
const artCacheSize = 32

// artCache holds the art artAt scaled, by file and size.
type artCache struct {
	mu sync.Mutex
	m  map[string]*image.RGBA
}

// artAt is the art of noun at s×s (premultiplied, at the origin),
// decoded and scaled once and then shared read-only; ok is false when
// noun has none.
func (e *Engine) artAt(noun string, s int) (*image.RGBA, bool, error) {
	name, data, ok, err := e.art.Find(noun)
	if err != nil || !ok {
		return nil, false, err
	}
	key := fmt.Sprintf("%s@%d", name, s)
	c := e.arts
	c.mu.Lock()
	img, hit := c.m[key]
	c.mu.Unlock()
	if hit {
		return img, true, nil
	}
	small, err := coverUpTo(data, s, s, true)
	if err != nil {
		return nil, false, err
	}
	img = enlarge(small, s, s)
	c.mu.Lock()
	if len(c.m) >= artCacheSize {
		clear(c.m)
	}
	c.m[key] = img
	c.mu.Unlock()
	return img, true, nil
}

// pointArrow draws an arrow from the face in box face to the object in
// box to, in the gap between them.
func pointArrow(canvas *image.RGBA, face, to image.Rectangle, p layout.Palette, short int) error {
	tx, ty := float64(to.Min.X+to.Max.X)/2, float64(to.Min.Y+to.Max.Y)/2
	// From the face's edge on the object's side, at its chin's height.
	fx, fy := float64(face.Min.X)+float64(face.Dx())*0.18, float64(face.Min.Y)+float64(face.Dy())*0.62
	if tx > float64(face.Max.X) {
		fx = float64(face.Max.X) - float64(face.Dx())*0.18
	}
	mx, my := fx+(tx-fx)*0.4, fy+(ty-fy)*0.4
	half := int(float64(short) * 0.14)
	box := image.Rect(int(mx)-half, int(my)-half, int(mx)+half, int(my)+half)
	aim := image.Pt(int(tx), int(ty))
	return drawAccent(canvas, accentJob{a: layout.Accent{Kind: layout.AccentArrow, Color: layout.RoleAccent}, box: box, aim: &aim, short: short}, p)
}

// drawBadge draws a burst with word in box (VS, OR, →).
func drawBadge(canvas *image.RGBA, word string, box image.Rectangle, p layout.Palette, short int) error {
	return drawAccent(canvas, accentJob{a: layout.Accent{Kind: layout.AccentBurst, Color: layout.RoleAccent, TextColor: layout.RoleStroke},
		box: box, word: word, short: short}, p)
}

// bigText sets words big in box: a number, or a comparison side with no
// art.
func bigText(canvas *image.RGBA, words string, box image.Rectangle, role layout.Role, p layout.Palette, short int) error {
	slot := layout.Text{Name: "number", Font: "display", Size: 0.42, Case: layout.CaseUpper, Align: layout.AlignCenter,
		VAlign: layout.VAlignMiddle, Color: role, StrokeColor: layout.RoleStroke, Stroke: 0.07, Shadow: true, MaxLines: 2, Rotate: -4}
	return drawText(canvas, textJob{slot: slot, words: strings.Fields(words), highlight: -1, box: box}, p, short)
}

// drawScene draws what the scene asks for into the boxes fitScene made:
// the objects (or a comparison's two sides with a badge between), the
// arrow from the face (in box face) to what it points at, and the number
// when the headline does not already show it. It returns what it drew,
// for the result's Applied.
func (e *Engine) drawScene(canvas *image.RGBA, sc scene.Scene, nouns []string, b sceneBoxes, face *image.Rectangle,
	jobs []textJob, p layout.Palette, short int) ([]string, error) {
	if len(b.objects) == 0 {
		return nil, nil
	}
	var applied []string
	if c := sc.Compare; c != nil && len(b.objects) == 2 {
		sides := []string{c.Left, c.Right}
		for i, side := range sides {
			ok := false
			if i < len(nouns) && nouns[i] != "" {
				var err error
				if ok, err = e.drawObject(canvas, nouns[i], b.objects[i], p, c.Kind == "before-after" && i == 0); err != nil {
					return nil, err
				}
			}
			if !ok || c.Kind == "before-after" {
				box := b.objects[i]
				if ok {
					box.Min.Y = box.Max.Y - box.Dy()/3
				}
				if err := bigText(canvas, side, box, layout.RoleText, p, short); err != nil {
					return nil, err
				}
			}
		}
		word := map[string]string{"vs": "VS", "or": "OR", "before-after": "→"}[c.Kind]
		if err := drawBadge(canvas, word, b.vs, p, short); err != nil {
			return nil, err
		}
		if c.Kind == "before-after" {
			return append(applied, "compare before and after"), nil
		}
		return append(applied, fmt.Sprintf("compare %s %s %s", strings.ToLower(c.Left), c.Kind, strings.ToLower(c.Right))), nil
	}
	box := b.objects[0]
	if len(nouns) > 0 {
		ok, err := e.drawObject(canvas, nouns[0], box, p, false)
		if err != nil {
			return nil, err
		}
		if ok {
			applied = append(applied, "object "+nouns[0])
			if sc.Pointing && face != nil {
				if err := pointArrow(canvas, *face, box, p, short); err != nil {
					return nil, err
				}
				applied = append(applied, "pointing at "+nouns[0])
			}
		}
		box.Min.Y = box.Max.Y - box.Dy()*2/5
	}
	if sc.Number != "" && !shown(jobs, sc.Number) {
		if err := bigText(canvas, sc.Number, box, layout.RoleAccent, p, short); err != nil {
			return nil, err
		}
		applied = append(applied, "number "+sc.Number)
	}
	return applied, nil
}

// shown reports whether the headline of jobs says number.
func shown(jobs []textJob, number string) bool {
	for _, j := range jobs {
		if j.slot.Name != layout.SlotHeadline {
			continue
		}
		for _, w := range j.words {
			if strings.EqualFold(strings.Trim(w, "!?.,"), number) {
				return true
			}
		}
	}
	return false
}

// comparisonHeadline is "A VS B" or "A OR B?" for a scene comparing two
// short sides, "" otherwise.
func comparisonHeadline(sc scene.Scene) string {
	c := sc.Compare
	if c == nil || c.Kind == "before-after" || len(strings.Fields(c.Left))+len(strings.Fields(c.Right)) > 5 {
		return ""
	}
	if c.Kind == "or" {
		return c.Left + " or " + c.Right + "?"
	}
	return c.Left + " vs " + c.Right
}
