package httpx

import (
	"errors"
	"testing"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
)

type textSample struct {
	Name  string   `json:"name"`
	Tags  []string `json:"tags"`
	Files []struct {
		N string `json:"n"`
	} `json:"files"`
	Meta  map[string]string `json:"meta"`
	Count int               `json:"count"`
}

func TestDecodeTextRule(t *testing.T) {
	for name, c := range map[string]struct{ body, field, reason string }{
		"nul escape":            {`{"name":"a\u0000b"}`, "name", textcheck.ReasonNUL},
		"escape control":        {`{"count":1,"name":"\u001b[31mred"}`, "name", textcheck.ReasonControl},
		"raw DEL":               {"{\"name\":\"a\x7fb\"}", "name", textcheck.ReasonControl},
		"raw C1":                {"{\"name\":\"a\u0085b\"}", "name", textcheck.ReasonControl},
		"escaped C1":            {`{"name":"a\u009bb"}`, "name", textcheck.ReasonControl},
		"invalid byte":          {"{\"name\":\"a\xffb\"}", "name", textcheck.ReasonUTF8},
		"lone surrogate":        {`{"name":"a\ud800b"}`, "name", textcheck.ReasonUTF8},
		"in array":              {`{"tags":["ok","x\u0000"]}`, "tags[1]", textcheck.ReasonNUL},
		"in array of objects":   {`{"files":[{"n":"ok"},{"n":"ok"},{"n":"\u0007"}]}`, "files[2].n", textcheck.ReasonControl},
		"after nested":          {`{"files":[{"n":"ok"}],"meta":{"a":"b"},"name":"\u0000"}`, "name", textcheck.ReasonNUL},
		"map value":             {`{"meta":{"k":"v\u0000"}}`, "meta.k", textcheck.ReasonNUL},
		"map key":               {`{"meta":{"k\u0000":"v"}}`, "meta.k\x00", textcheck.ReasonNUL},
		"invalid after valid é": {"{\"tags\":[\"\u00e9\",\"\xc3\"]}", "tags[1]", textcheck.ReasonUTF8},
	} {
		t.Run(name, func(t *testing.T) {
			var s textSample
			err := DecodeBytes([]byte(c.body), &s)
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Code != apierr.InvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			if got := ae.Details["fields"].(map[string]string)[c.field]; got != c.reason {
				t.Fatalf("fields %v, want %s: %s", ae.Details["fields"], c.field, c.reason)
			}
		})
	}
	for _, ok := range []string{
		`{"name":"multi\nline\ttext\r\n"}`,
		`{"name":"caf\u00e9 \u540d\u524d \ud83c\udfa8"}`,
		"{\"name\":\"literal \uFFFD and escaped \\uFFFD replacement characters\"}",
		`{"name":"plain","tags":["a","b"],"meta":{"k":"v"},"count":3}`,
	} {
		var s textSample
		if err := DecodeBytes([]byte(ok), &s); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func BenchmarkDecodeText(b *testing.B) {
	plain := []byte(`{"name":"a perfectly ordinary name","tags":["one","two","three"],"count":3}`)
	escaped := []byte(`{"name":"caf\u00e9 ordinary","tags":["one","two","three"],"count":3}`)
	for name, body := range map[string][]byte{"plain": plain, "escaped": escaped} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				var s textSample
				if err := DecodeBytes(body, &s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
