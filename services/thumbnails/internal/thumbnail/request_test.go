package thumbnail

import (
	"errors"
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

func ptr[T any](v T) *T { return &v }

func fields(t *testing.T, err error) map[string]string {
	t.Helper()
	var ae *apierr.Error
	if err == nil {
		return nil
	}
	if !errors.As(err, &ae) {
		t.Fatalf("error %v is not an apierr", err)
	}
	f, _ := ae.Details["fields"].(map[string]string)
	return f
}

func TestValidateGenerate(t *testing.T) {
	s, err := ValidateGenerate(GenerateInput{Prompt: ptr("  héllo  ")})
	if err != nil || s.Prompt != "héllo" || s.Aspect != Landscape || s.FaceIDs != nil {
		t.Fatalf("%+v %v", s, err)
	}
	// 2000 code points of a 3-byte character pass; 2001 do not.
	if _, err := ValidateGenerate(GenerateInput{Prompt: ptr(strings.Repeat("日", MaxPrompt))}); err != nil {
		t.Fatal(err)
	}
	f := fields(t, func() error {
		_, err := ValidateGenerate(GenerateInput{Prompt: ptr(strings.Repeat("日", MaxPrompt+1)), AspectRatio: ptr("1:1"),
			Refs: Refs{StyleID: ptr("x"), FaceIDs: []string{"00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000001", "y"}}})
		return err
	}())
	for _, k := range []string{"prompt", "aspectRatio", "styleId", "faceIds[1]", "faceIds[2]"} {
		if f[k] == "" {
			t.Errorf("no reason for %s in %v", k, f)
		}
	}
	if f := fields(t, func() error { _, err := ValidateGenerate(GenerateInput{}); return err }()); f["prompt"] != "is required" {
		t.Errorf("missing prompt: %v", f)
	}
}

func TestValidateVariationsAndPrompts(t *testing.T) {
	s, err := ValidateVariations(VariationsInput{ThumbnailID: ptr("00000000-0000-4000-8000-000000000001")})
	if err != nil || s.Count != DefaultVariations || s.Tweak != "" {
		t.Fatalf("%+v %v", s, err)
	}
	for _, n := range []int{0, MaxVariations + 1} {
		if f := fields(t, func() error {
			_, err := ValidateVariations(VariationsInput{ThumbnailID: ptr("00000000-0000-4000-8000-000000000001"), Count: ptr(n)})
			return err
		}()); f["count"] == "" {
			t.Errorf("count %d accepted", n)
		}
	}
	if got := VariationPrompt("city", "purple"); got != "city — purple" {
		t.Errorf("VariationPrompt = %q", got)
	}
	if got := VariationPrompt("city", ""); got != "city" {
		t.Errorf("VariationPrompt without tweak = %q", got)
	}
	for _, tc := range []struct {
		s    Spec
		want string
	}{{Spec{Prompt: "p", Headline: "h"}, "p"}, {Spec{Headline: "h"}, "h"}, {Spec{}, "Template"}} {
		if got := RemixPrompt(tc.s, "Template"); got != tc.want {
			t.Errorf("RemixPrompt(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
	if f := fields(t, func() error { _, err := ValidateRemix(RemixInput{Headline: ptr("a\nb")}); return err }()); f["headline"] == "" {
		t.Error("a multi-line headline was accepted")
	}
	if _, err := ParseKind("poster"); err == nil {
		t.Error("kind poster accepted")
	}
}
