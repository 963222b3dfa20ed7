package exports

import (
	"encoding/xml"
	"fmt"
	"math"
	"strings"
)

// FCPXML's elements, as version 1.10 of the format names them (Apple's
// "FCPXML Reference": resources with formats and an asset with its
// media-rep; a library, event, project and sequence whose spine holds the
// asset-clips and gaps; adjust-transform with keyframeAnimation params).
// Tagged structs, so that encoding/xml escapes every name.
type fcpxmlDoc struct {
	XMLName   xml.Name    `xml:"fcpxml"`
	Version   string      `xml:"version,attr"`
	Resources fcpResource `xml:"resources"`
	Library   fcpLibrary  `xml:"library"`
}

type fcpResource struct {
	Formats []fcpFormat `xml:"format"`
	Asset   fcpAsset    `xml:"asset"`
}

type fcpFormat struct {
	ID            string `xml:"id,attr"`
	FrameDuration string `xml:"frameDuration,attr"`
	Width         int    `xml:"width,attr"`
	Height        int    `xml:"height,attr"`
}

type fcpAsset struct {
	ID            string      `xml:"id,attr"`
	Name          string      `xml:"name,attr"`
	Start         string      `xml:"start,attr"`
	Duration      string      `xml:"duration,attr"`
	HasVideo      string      `xml:"hasVideo,attr"`
	HasAudio      string      `xml:"hasAudio,attr"`
	Format        string      `xml:"format,attr"`
	AudioSources  string      `xml:"audioSources,attr"`
	AudioChannels string      `xml:"audioChannels,attr"`
	MediaRep      fcpMediaRep `xml:"media-rep"`
}

type fcpMediaRep struct {
	Kind string `xml:"kind,attr"`
	Src  string `xml:"src,attr"`
}

type fcpLibrary struct {
	Event fcpEvent `xml:"event"`
}

type fcpEvent struct {
	Name    string     `xml:"name,attr"`
	Project fcpProject `xml:"project"`
}

type fcpProject struct {
	Name     string      `xml:"name,attr"`
	Sequence fcpSequence `xml:"sequence"`
}

type fcpSequence struct {
	Format   string   `xml:"format,attr"`
	Duration string   `xml:"duration,attr"`
	TCStart  string   `xml:"tcStart,attr"`
	TCFormat string   `xml:"tcFormat,attr"`
	Spine    fcpSpine `xml:"spine"`
}

type fcpSpine struct {
	Items []any
}

type fcpAssetClip struct {
	XMLName   xml.Name      `xml:"asset-clip"`
	Ref       string        `xml:"ref,attr"`
	Offset    string        `xml:"offset,attr"`
	Name      string        `xml:"name,attr"`
	Start     string        `xml:"start,attr"`
	Duration  string        `xml:"duration,attr"`
	Format    string        `xml:"format,attr"`
	TCFormat  string        `xml:"tcFormat,attr"`
	Conform   *fcpConform   `xml:"adjust-conform,omitempty"`
	Transform *fcpTransform `xml:"adjust-transform,omitempty"`
}

type fcpGap struct {
	XMLName  xml.Name `xml:"gap"`
	Name     string   `xml:"name,attr"`
	Offset   string   `xml:"offset,attr"`
	Duration string   `xml:"duration,attr"`
}

type fcpConform struct {
	Type string `xml:"type,attr"`
}

type fcpTransform struct {
	Params []fcpParam `xml:"param"`
}

type fcpParam struct {
	Name      string        `xml:"name,attr"`
	Keyframes []fcpKeyframe `xml:"keyframeAnimation>keyframe"`
}

type fcpKeyframe struct {
	Time  string `xml:"time,attr"`
	Value string `xml:"value,attr"`
}

// FCPXML is the cut as an FCPXML 1.10 document: one sequence of the
// render's size and rate whose spine holds an asset-clip per kept piece
// of the source (start is the source in point, duration the piece) and a
// gap for the end card. A reframed render's clips conform to fill the
// frame and carry the crop path as position (and, with punch-ins, scale)
// keyframes in the clip's own time: position in percent of the frame's
// height, y up, as FCPXML measures it. The asset refers to Cut.Source by
// a relative URL: the editor relinks it to the source video.
func FCPXML(c Cut) ([]byte, error) {
	t := func(frames int) string {
		if frames == 0 {
			return "0s"
		}
		return fmt.Sprintf("%d/%ds", frames, c.FPS)
	}
	pieces := c.Pieces()
	doc := fcpxmlDoc{Version: "1.10"}
	doc.Resources.Formats = []fcpFormat{
		{ID: "r1", FrameDuration: t(1), Width: c.OutW, Height: c.OutH},
		{ID: "r2", FrameDuration: t(1), Width: c.SrcW, Height: c.SrcH},
	}
	doc.Resources.Asset = fcpAsset{ID: "r3", Name: c.Source, Start: "0s", Duration: t(c.frame(max(c.End, c.SourceSeconds))), HasVideo: "1", HasAudio: "1",
		Format: "r2", AudioSources: "1", AudioChannels: "2", MediaRep: fcpMediaRep{Kind: "original-media", Src: c.Source}}
	seq := fcpSequence{Format: "r1", Duration: t(c.Frames()), TCStart: "0s", TCFormat: "NDF"}
	for k, p := range pieces {
		clip := fcpAssetClip{Ref: "r3", Offset: t(p.RecIn), Name: fmt.Sprintf("%s %d", c.Title, k+1), Start: t(p.SrcIn),
			Duration: t(p.Frames()), Format: "r2", TCFormat: "NDF"}
		if keys := c.keyframes(p, t); len(keys) > 0 {
			clip.Conform = &fcpConform{Type: "fill"}
			clip.Transform = &fcpTransform{Params: keys}
		}
		seq.Spine.Items = append(seq.Spine.Items, clip)
	}
	if end := c.frame(c.EndCard); end > 0 {
		at := 0
		if n := len(pieces); n > 0 {
			at = pieces[n-1].RecOut
		}
		seq.Spine.Items = append(seq.Spine.Items, fcpGap{Name: "End card", Offset: t(at), Duration: t(end)})
	}
	doc.Library.Event = fcpEvent{Name: "Hookline", Project: fcpProject{Name: c.Title, Sequence: seq}}
	body, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header+"<!DOCTYPE fcpxml>\n"), append(body, '\n')...), nil
}

// keyframes are the crop path's windows inside piece p as position and
// scale keyframes at source times; a window the same as both neighbours
// is left out (FCP interpolates between the others). nil without a path.
func (c Cut) keyframes(p Piece, t func(int) string) []fcpParam {
	if len(c.Crop) == 0 || c.SrcH <= 0 {
		return nil
	}
	type key struct {
		frame      int
		pos, scale string
	}
	var keys []key
	zoomed := false
	add := func(rec int, w Window) {
		z := float64(c.SrcH) / float64(max(1, w.H))
		dx := float64(w.X) + float64(w.W)/2 - float64(c.SrcW)/2
		dy := float64(w.Y) + float64(w.H)/2 - float64(c.SrcH)/2
		k := key{frame: p.SrcIn + rec - p.RecIn,
			pos:   fmt.Sprintf("%s %s", num(-dx*z/float64(c.SrcH)*100), num(dy*z/float64(c.SrcH)*100)),
			scale: fmt.Sprintf("%s %s", num(z), num(z))}
		zoomed = zoomed || math.Abs(z-1) > 1e-3
		if n := len(keys); n > 0 && keys[n-1].frame == k.frame {
			keys[n-1] = k
			return
		}
		keys = append(keys, k)
	}
	// The window in force when the piece starts, then each change inside.
	for i, w := range c.Crop {
		f := c.frame(w.T)
		next := p.RecOut
		if i+1 < len(c.Crop) {
			next = c.frame(c.Crop[i+1].T)
		}
		switch {
		case f < p.RecIn && next > p.RecIn:
			add(p.RecIn, w)
		case f >= p.RecIn && f < p.RecOut:
			add(f, w)
		}
	}
	pos, scale := fcpParam{Name: "position"}, fcpParam{Name: "scale"}
	for i, k := range keys {
		if i > 0 && i+1 < len(keys) && k.pos == keys[i-1].pos && k.pos == keys[i+1].pos && k.scale == keys[i-1].scale && k.scale == keys[i+1].scale {
			continue
		}
		pos.Keyframes = append(pos.Keyframes, fcpKeyframe{Time: t(k.frame), Value: k.pos})
		scale.Keyframes = append(scale.Keyframes, fcpKeyframe{Time: t(k.frame), Value: k.scale})
	}
	if len(pos.Keyframes) == 0 {
		return nil
	}
	if !zoomed {
		return []fcpParam{pos}
	}
	return []fcpParam{pos, scale}
}

// num is x with up to four decimals, without trailing zeros.
func num(x float64) string {
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", x), "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}
