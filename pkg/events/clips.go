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
