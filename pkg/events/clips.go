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
// reservation.
type RenderFailed struct {
	ReservationID string `json:"reservationId"`
	RenderID      string `json:"renderId"`
	Reason        string `json:"reason"`
}
