package thumbnail

import (
	"fmt"

	"hookline.dev/pkg/platform/apierr"
)

// Op is the edit that made a thumbnail, named as its endpoint under
// /thumbnails/edit ("edit" is /thumbnails/edit itself). Package edits
// holds the operations; a thumbnail only records the name.
type Op string

// The rules below are those of the fields several edits share, with the
// same limits and wording as the other requests.

// EditPrompt checks an edit's required prompt field (prompt,
// filterPrompt, backgroundPrompt): one line of text, 1 to MaxPrompt code
// points after trimming. It returns the trimmed prompt.
func EditPrompt(f apierr.Fields, field string, v *string) string {
	if v == nil {
		f.Add(field, "is required")
		return ""
	}
	return text(f, field, *v, MaxPrompt, false)
}

// EditAspect checks an edit's optional aspectRatio: "" when not sent, the
// result then keeps its source's shape.
func EditAspect(f apierr.Fields, v *string) Aspect { return aspect(f, v) }

// EditReferences checks an edit's referenceImageUrls: at most
// MaxReferences.
func EditReferences(f apierr.Fields, urls []string) []string {
	if n := len(urls); n > MaxReferences {
		f.Add("referenceImageUrls", fmt.Sprintf("at most %d images, got %d", MaxReferences, n))
	}
	return urls
}

// EditID checks a uuid field of an edit (a saved face's id) and returns
// its canonical form, "" when malformed.
func EditID(f apierr.Fields, field, s string) string { return id(f, field, s) }
