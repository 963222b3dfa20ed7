package service

import (
	"testing"

	"hookline.dev/services/clips/internal/exports"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/media"
)

// The cut handed to the edit decision lists is the render's own: its
// jump cuts, the end card it added (the MP4 less the kept clip) and its
// crop windows, full height or zoomed, in source pixels.
func TestExportCutIsTheRendersOwn(t *testing.T) {
	res := ffrender.Result{FPS: 30, Duration: 20 - 3 + 2.5, Removed: []ffrender.Span{{From: 2, To: 3}, {From: 10, To: 12}},
		Crop: []ffrender.CropPoint{{T: 0, X: 100}, {T: 4, X: 300, Y: 60, Zoom: 1.25}}}
	c := exportCut("Best bit", media.Info{Width: 1920, Height: 1080, Duration: 600}, 1080, 1920, 40, 60, res)
	if len(c.Removed) != 2 || c.Removed[1] != (exports.Span{From: 10, To: 12}) || c.EndCard < 2.49 || c.EndCard > 2.51 || c.SourceSeconds != 600 {
		t.Errorf("cut %+v", c)
	}
	want := []exports.Window{{T: 0, X: 100, W: 608, H: 1080}, {T: 4, X: 300, Y: 60, W: 486, H: 864}}
	if len(c.Crop) != 2 || c.Crop[0] != want[0] || c.Crop[1] != want[1] {
		t.Errorf("crop %+v, want %+v", c.Crop, want)
	}
	if got := c.Frames(); got != (20-3)*30+75 {
		t.Errorf("the lists last %d frames, want the MP4's %d", got, (20-3)*30+75)
	}
}
