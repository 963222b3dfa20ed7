package hookline

import (
	"context"
	"net/http"
)

// GetClipTranscript returns a page of a ready project's transcript (free),
// with its ETag for EditClipTranscript.
func (c *Client) GetClipTranscript(ctx context.Context, projectID string, params *ListParams, opts ...RequestOption) (*ClipTranscript, error) {
	var resp Response
	t, err := getData[ClipTranscript](ctx, c, "/api/v1/clips/projects/"+pathID(projectID)+"/transcript", queryOf(params), append(opts, CaptureResponse(&resp)))
	if err != nil {
		return nil, err
	}
	t.ETag = resp.Header.Get("ETag")
	return t, nil
}

// EditClipTranscript applies req's operations to the version req.IfMatch
// names (free): replace a word's text, delete or restore a range of
// words, set the vocabulary; with Rerank the project's clips are
// rescored (steered by Prompt when set). A stale IfMatch is a 412 precondition_failed (GET again and
// re-apply); an empty one is a 428. It returns the first page of the
// new version with its ETag.
func (c *Client) EditClipTranscript(ctx context.Context, projectID string, req *ClipTranscriptEdit, opts ...RequestOption) (*ClipTranscript, error) {
	var resp Response
	opts = append(opts, CaptureResponse(&resp))
	if req.IfMatch != "" {
		opts = append(opts, WithHeader("If-Match", req.IfMatch))
	}
	t, err := sendData[ClipTranscript](ctx, c, call{method: http.MethodPatch, path: "/api/v1/clips/projects/" + pathID(projectID) + "/transcript", body: req}, opts)
	if err != nil {
		return nil, err
	}
	t.ETag = resp.Header.Get("ETag")
	return t, nil
}

// ClipTranscript is a page of a project's transcript.
type ClipTranscript struct {
	ProjectID  string                  `json:"projectId"`
	Version    int                     `json:"version"`
	Vocabulary []string                `json:"vocabulary"`
	Words      []ClipTranscriptWord    `json:"words"`
	Segments   []ClipTranscriptSegment `json:"segments"`
	Pagination Pagination              `json:"pagination"`
	// ETag is the response's ETag header: the If-Match of an edit.
	ETag string `json:"-"`
}

// ClipTranscriptWord is a word; ID is its index in the original
// recognition, stable across edits.
type ClipTranscriptWord struct {
	ID         int     `json:"id"`
	Text       string  `json:"text"`
	Start      float64 `json:"start"`
	End        float64 `json:"end"`
	Confidence float64 `json:"confidence"`
	Deleted    bool    `json:"deleted"`
}

// ClipTranscriptSegment is a caption cue or recognised sentence over
// the words FirstWordID..LastWordID.
type ClipTranscriptSegment struct {
	Start       float64 `json:"start"`
	End         float64 `json:"end"`
	Text        string  `json:"text"`
	FirstWordID int     `json:"firstWordId"`
	LastWordID  int     `json:"lastWordId"`
}

// ClipTranscriptEdit is the body of EditClipTranscript.
type ClipTranscriptEdit struct {
	Operations []ClipTranscriptOperation `json:"operations"`
	Rerank     bool                      `json:"rerank,omitempty"`
	// Prompt, with Rerank, steers the re-rank and becomes the project's;
	// Operations may then be empty (not nil): a re-rank of the same words.
	Prompt string `json:"prompt,omitempty"`
	// IfMatch is the ETag of the transcript the edits were made on ("*":
	// whatever is current); sent as the If-Match header.
	IfMatch string `json:"-"`
}

// ClipTranscriptOperation is one edit; see the TranscriptOp helpers.
type ClipTranscriptOperation struct {
	Op     string `json:"op"`
	WordID *int   `json:"wordId,omitempty"`
	Text   string `json:"text,omitempty"`
	From   *int   `json:"from,omitempty"`
	To     *int   `json:"to,omitempty"`
	// Terms is a pointer so that an empty vocabulary is sent as [].
	Terms *[]string `json:"terms,omitempty"`
}

// ReplaceWord sets word id's text.
func ReplaceWord(id int, text string) ClipTranscriptOperation {
	return ClipTranscriptOperation{Op: "replace", WordID: &id, Text: text}
}

// DeleteWords deletes the words from..to (ids, both included).
func DeleteWords(from, to int) ClipTranscriptOperation {
	return ClipTranscriptOperation{Op: "delete", From: &from, To: &to}
}

// RestoreWords undoes deletions over from..to.
func RestoreWords(from, to int) ClipTranscriptOperation {
	return ClipTranscriptOperation{Op: "restore", From: &from, To: &to}
}

// SetVocabulary sets the project's custom vocabulary.
func SetVocabulary(terms ...string) ClipTranscriptOperation {
	if terms == nil {
		terms = []string{}
	}
	return ClipTranscriptOperation{Op: "vocabulary", Terms: &terms}
}
