package httpx

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
)

// checkText applies textcheck's multi-line rule to every string of a JSON
// body that decoded, keys included, and names the first offender by its
// path ("name", "files[2].fileName"). It must look at the raw body:
// encoding/json turns invalid UTF-8 and lone surrogate escapes into
// U+FFFD without a word, so a decoded string cannot tell.
func checkText(body []byte) error {
	if !suspicious(body) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		array   bool
		index   int
		key     string
		wantKey bool
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.array {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		if b.Len() == 0 {
			return "body"
		}
		return b.String()
	}
	// valueDone advances the enclosing container past one value.
	valueDone := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].wantKey = true
			}
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			// The body decoded already, so this is its end.
			return nil
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{wantKey: true})
			case '[':
				stack = append(stack, frame{array: true})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			top := len(stack) - 1
			isKey := top >= 0 && !stack[top].array && stack[top].wantKey
			if isKey {
				// A key is named by its own path.
				stack[top].key, stack[top].wantKey = t, false
			}
			if reason := textReason(t, body[start:dec.InputOffset()]); reason != "" {
				return apierr.Field(path(), reason)
			}
			if !isKey {
				valueDone()
			}
		default:
			valueDone()
		}
	}
}

// textReason checks one decoded string against the raw bytes it came
// from: a U+FFFD the raw text does not spell out (literally or as
// \ufffd) was put there by the decoder for invalid input.
func textReason(s string, raw []byte) string {
	if n := strings.Count(s, "\uFFFD"); n > 0 {
		spelled := bytes.Count(raw, []byte("\uFFFD")) + bytes.Count(bytes.ToLower(raw), []byte(`\ufffd`))
		if n > spelled {
			return textcheck.ReasonUTF8
		}
	}
	return textcheck.Reason(s, true)
}

// suspicious is the fast path: a body of valid UTF-8 without \u escapes
// and without DEL or C1 characters holds no string textcheck refuses (raw
// C0 characters are not valid JSON inside strings).
func suspicious(body []byte) bool {
	if !utf8.Valid(body) || bytes.Contains(body, []byte(`\u`)) || bytes.IndexByte(body, 0x7f) >= 0 {
		return true
	}
	for i := bytes.IndexByte(body, 0xC2); i >= 0 && i+1 < len(body); {
		if body[i+1] >= 0x80 && body[i+1] <= 0x9F { // U+0080..U+009F
			return true
		}
		j := bytes.IndexByte(body[i+1:], 0xC2)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}
