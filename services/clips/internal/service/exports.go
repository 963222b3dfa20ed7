package service

import (
	"bytes"
	"context"
	"math"

	"hookline.dev/services/clips/internal/exports"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/render"
)

// exportCut is what the render res did to its source, for the edit
// decision lists: the clip, the stretches the render's own jump cuts
// removed, the end card and the crop path it followed (a split frame's
// stretch follows its top half).
func exportCut(title string, src media.Info, outW, outH int, start, end float64, res ffrender.Result) exports.Cut {
	srcW, srcH := src.Width, src.Height
	c := exports.Cut{Title: title, Source: "source.mp4", SrcW: srcW, SrcH: srcH, OutW: outW, OutH: outH, FPS: res.FPS,
		Start: start, End: end, SourceSeconds: src.Duration}
	kept := end - start
	for _, r := range res.Removed {
		c.Removed = append(c.Removed, exports.Span{From: r.From, To: r.To})
		kept -= r.To - r.From
	}
	c.EndCard = math.Max(0, res.Duration-kept)
	// The full-height window of the output's shape, as the reframing crops.
	fullW := int(math.Round(float64(srcH) * float64(outW) / float64(outH)))
	for _, p := range res.Crop {
		w := exports.Window{T: p.T, X: p.X, Y: 0, W: fullW, H: srcH}
		if p.Zoom > 1 {
			w.Y, w.W, w.H = p.Y, int(math.Round(float64(fullW)/p.Zoom)), int(math.Round(float64(srcH)/p.Zoom))
		}
		if len(p.Halves) > 0 {
			h := p.Halves[0]
			w.X, w.Y, w.W, w.H = h.X, h.Y, h.W, h.H
		}
		c.Crop = append(c.Crop, w)
	}
	return c
}

// storeExports stores the render's captions and edit decision lists
// beside its MP4 (base is the MP4's key without ".mp4") and lists them
// on r.
func (s *Worker) storeExports(ctx context.Context, r *render.Render, base string, res ffrender.Result, cut exports.Cut) error {
	fcpxml, err := exports.FCPXML(cut)
	if err != nil {
		return err
	}
	r.Exports = nil
	for _, f := range []struct {
		format render.ExportFormat
		file   string
		body   []byte
	}{
		{format: render.ExportSRT, file: res.SRT},
		{format: render.ExportVTT, file: res.VTT},
		{format: render.ExportFCPXML, body: fcpxml},
		{format: render.ExportEDL, body: exports.EDL(cut)},
	} {
		key := base + "." + string(f.format)
		var err error
		if f.file != "" {
			err = s.putFile(ctx, f.file, key, f.format.ContentType())
		} else {
			err = s.Blobs.Put(ctx, key, bytes.NewReader(f.body), int64(len(f.body)), f.format.ContentType())
		}
		if err != nil {
			return err
		}
		r.Exports = append(r.Exports, render.Export{Format: f.format, Key: key})
	}
	return nil
}
