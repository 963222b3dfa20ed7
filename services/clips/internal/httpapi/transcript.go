package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/clips/internal/transcript"
)

// transcriptDTO is a page of a project's transcript: the words of the
// page and the segments they belong to.
type transcriptDTO struct {
	ProjectID  string           `json:"projectId"`
	Version    int              `json:"version"`
	Vocabulary []string         `json:"vocabulary"`
	Words      []wordDTO        `json:"words"`
	Segments   []segmentDTO     `json:"segments"`
	Pagination httpx.Pagination `json:"pagination"`
}

type wordDTO struct {
	ID         int     `json:"id"`
	Text       string  `json:"text"`
	Start      float64 `json:"start"`
	End        float64 `json:"end"`
	Confidence float64 `json:"confidence"`
	Deleted    bool    `json:"deleted"`
}

type segmentDTO struct {
	Start       float64 `json:"start"`
	End         float64 `json:"end"`
	Text        string  `json:"text"`
	FirstWordID int     `json:"firstWordId"`
	LastWordID  int     `json:"lastWordId"`
}

// opDTO is an operation of a PATCH.
type opDTO struct {
	Op     *string   `json:"op"`
	WordID *int      `json:"wordId"`
	Text   *string   `json:"text"`
	From   *int      `json:"from"`
	To     *int      `json:"to"`
	Terms  *[]string `json:"terms"`
}

// etag is a transcript version's entity tag (strong).
func etag(version int) string { return `"` + strconv.Itoa(version) + `"` }

// ifMatch reads If-Match: the version it names, 0 for "*"; a missing
// header is 428 (an edit must say which version it was made on), one
// naming no version of ours (a weak tag, a list without ours) is 412.
func ifMatch(r *http.Request) (int, error) {
	h := strings.TrimSpace(r.Header.Get("If-Match"))
	if h == "" {
		return 0, apierr.New(apierr.PreconditionRequired, "If-Match is required: send the ETag of the transcript you edited (GET answers it)")
	}
	if h == "*" {
		return 0, nil
	}
	v, err := strconv.Atoi(strings.Trim(h, `"`))
	if err != nil || v < 1 || !strings.HasPrefix(h, `"`) || !strings.HasSuffix(h, `"`) {
		return -1, nil // matches no version
	}
	return v, nil
}

func (h *api) getTranscript(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "projectId")
	if err != nil {
		return err
	}
	page, err := httpx.ParsePage(r)
	if err != nil {
		return err
	}
	t, err := h.svc.Transcript(r.Context(), principal.Org(r), id)
	if err != nil {
		return err
	}
	return writeTranscript(w, id, t, page)
}

func (h *api) editTranscript(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "projectId")
	if err != nil {
		return err
	}
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	var in struct {
		Operations *[]opDTO `json:"operations"`
		Rerank     *bool    `json:"rerank"`
		Prompt     *string  `json:"prompt"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if in.Operations == nil {
		return apierr.Field("operations", "required")
	}
	ops := make([]transcript.OpIn, len(*in.Operations))
	for i, o := range *in.Operations {
		ops[i] = transcript.OpIn(o)
	}
	if in.Prompt != nil && (in.Rerank == nil || !*in.Rerank) {
		return apierr.Field("prompt", "steers a re-rank: send it with rerank: true")
	}
	t, err := h.svc.EditTranscript(r.Context(), principal.Org(r), id, version, ops, in.Rerank != nil && *in.Rerank, in.Prompt)
	if err != nil {
		return err
	}
	return writeTranscript(w, id, t, httpx.Page{Page: 1, Limit: httpx.DefaultLimit})
}

// writeTranscript answers a page of t with its ETag.
func writeTranscript(w http.ResponseWriter, projectID string, t transcript.Transcript, page httpx.Page) error {
	words := t.Listed()
	from := min(page.Offset(), len(words))
	to := min(from+page.Limit, len(words))
	out := transcriptDTO{ProjectID: projectID, Version: t.Version, Vocabulary: t.Vocabulary, Words: make([]wordDTO, 0, to-from),
		Segments: []segmentDTO{}, Pagination: httpx.Pagination{Page: page.Page, Limit: page.Limit, Total: len(words), HasMore: to < len(words)}}
	if out.Vocabulary == nil {
		out.Vocabulary = []string{}
	}
	for _, wd := range words[from:to] {
		out.Words = append(out.Words, wordDTO{ID: wd.ID, Text: wd.Text, Start: round3(wd.Start), End: round3(wd.End),
			Confidence: round3(wd.Confidence), Deleted: wd.Deleted})
	}
	if len(out.Words) > 0 {
		first, last := out.Words[0].ID, out.Words[len(out.Words)-1].ID
		for _, s := range t.Segments {
			if s.LastWord >= first && s.FirstWord <= last {
				out.Segments = append(out.Segments, segmentDTO{Start: round3(s.Start), End: round3(s.End), Text: s.Text,
					FirstWordID: s.FirstWord, LastWordID: s.LastWord})
			}
		}
	}
	w.Header().Set("ETag", etag(t.Version))
	return httpx.OK(w, out)
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
