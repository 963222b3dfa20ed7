package events

// ClipsPrepareJob is jobs.clips.prepare.v1: make a clip project's source
// ready (download, probe, transcribe when there were no captions, measure,
// rescore). It is redelivered until a worker finishes it; the work is
// idempotent.
type ClipsPrepareJob struct {
	ProjectID string `json:"projectId"`
	// Tier is the organization's tier at creation: it bounds the source's
	// length.
	Tier string `json:"tier"`
}

// ClipsRenderJob is jobs.clips.render.v1: render one render job.
type ClipsRenderJob struct {
	RenderID string `json:"renderId"`
}

// RenderCompleted is clips.render.completed.v1: billing commits the
// render's reservation.
type RenderCompleted struct {
	ReservationID string `json:"reservationId"`
	RenderID      string `json:"renderId"`
	ProjectID     string `json:"projectId"`
	ClipID        string `json:"clipId"`
	OutputURL     string `json:"outputUrl"`
}

// RenderFailed is clips.render.failed.v1: billing refunds the render's
// reservation. Credits is what the reservation held, the refund billing
// makes (0 in events published before it was added).
type RenderFailed struct {
	ReservationID string `json:"reservationId"`
	RenderID      string `json:"renderId"`
	Reason        string `json:"reason"`
	Credits       int64  `json:"credits,omitempty"`
}

// ProjectReady is clips.project.ready.v1: a clip project's source was
// prepared and its clips are final.
type ProjectReady struct {
	ProjectID  string  `json:"projectId"`
	VideoTitle string  `json:"videoTitle"`
	Duration   float64 `json:"duration"`
	ClipCount  int     `json:"clipCount"`
}

// ProjectFailed is clips.project.failed.v1: a clip project's source could
// not be prepared; Reason is the project's downloadError.
type ProjectFailed struct {
	ProjectID string `json:"projectId"`
	Reason    string `json:"reason"`
}
