package videotext

import (
	"errors"
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

func ptr[T any](v T) *T { return &v }

func fields(t *testing.T, err error) map[string]string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("not an apierr: %v", err)
	}
	out, _ := ae.Details["fields"].(map[string]string)
	return out
}

func TestValidateAnalyze(t *testing.T) {
	long := strings.Repeat("word ", 20)
	for _, tc := range []struct {
		in   AnalyzeInput
		want string // a field named in the 400, "" for none
	}{
		{AnalyzeInput{Transcript: ptr(long)}, ""},
		{AnalyzeInput{VideoSiteURL: ptr("https://youtu.be/dQw4w9WgXcQ")}, ""},
		{AnalyzeInput{}, "videoSiteUrl"},
		{AnalyzeInput{Transcript: ptr(long), VideoSiteURL: ptr("https://youtu.be/dQw4w9WgXcQ")}, "transcript"},
		{AnalyzeInput{Transcript: ptr("  " + strings.Repeat("é", 49) + "  ")}, "transcript"},
		{AnalyzeInput{VideoSiteURL: ptr("javascript:alert(1)")}, "videoSiteUrl"},
		{AnalyzeInput{VideoSiteURL: ptr("https://youtube.com@evil.com/watch?v=dQw4w9WgXcQ")}, "videoSiteUrl"},
		{AnalyzeInput{Transcript: ptr(long), VideoTitle: ptr(strings.Repeat("t", 101))}, "videoTitle"},
		{AnalyzeInput{Transcript: ptr(long), VideoTitle: ptr("two\nlines")}, "videoTitle"},
	} {
		a, err := ValidateAnalyze(tc.in)
		f := fields(t, err)
		if tc.want == "" && err != nil || tc.want != "" && f[tc.want] == "" {
			t.Errorf("%+v: %v (fields %v), want field %q", tc.in, err, f, tc.want)
		}
		if err == nil && a.Title != DefaultVideoTitle {
			t.Errorf("title %q", a.Title)
		}
	}
	if _, err := ValidateAnalyze(AnalyzeInput{Transcript: ptr(strings.Repeat("é", 50))}); err != nil {
		t.Errorf("50 code points refused: %v", err)
	}
}

func TestValidateTitlesAndDescription(t *testing.T) {
	if f := fields(t, func() error { _, err := ValidateTitles(TitlesInput{}); return err }()); f["videoTitle"] == "" {
		t.Errorf("empty titles body: %v", f)
	}
	if f := fields(t, func() error { _, err := ValidateTitles(TitlesInput{Keywords: []string{}}); return err }()); f["videoTitle"] == "" {
		t.Errorf("empty keywords only: %v", f)
	}
	for _, tc := range []struct {
		in   TitlesInput
		want string
	}{
		{TitlesInput{Keywords: []string{"sourdough"}}, ""},
		{TitlesInput{VideoTitle: ptr("x"), Count: ptr(21)}, "count"},
		{TitlesInput{VideoTitle: ptr("x"), Count: ptr(0)}, "count"},
		{TitlesInput{Keywords: []string{strings.Repeat("k", 41)}}, "keywords[0]"},
		{TitlesInput{Keywords: make([]string, 11)}, "keywords"},
		{TitlesInput{Transcript: ptr("t"), VideoSiteURL: ptr("https://youtu.be/dQw4w9WgXcQ")}, "videoSiteUrl"},
	} {
		_, err := ValidateTitles(tc.in)
		if f := fields(t, err); tc.want == "" && err != nil || tc.want != "" && f[tc.want] == "" {
			t.Errorf("%+v: %v", tc.in, err)
		}
	}
	for _, tc := range []struct {
		in   DescriptionInput
		want string
	}{
		{DescriptionInput{Title: ptr("My video")}, ""},
		{DescriptionInput{}, "title"},
		{DescriptionInput{Title: ptr("  ")}, "title"},
		{DescriptionInput{Title: ptr("x"), Transcript: ptr("t"), VideoSiteURL: ptr("https://youtu.be/dQw4w9WgXcQ")}, "transcript"},
		{DescriptionInput{Title: ptr("x"), Links: []LinkInput{{URL: ptr("ftp://x")}}}, "links[0].url"},
		{DescriptionInput{Title: ptr("x"), Links: []LinkInput{{Title: ptr("t")}}}, "links[0].url"},
		{DescriptionInput{Title: ptr("x"), Links: make([]LinkInput, 11)}, "links"},
	} {
		_, err := ValidateDescription(tc.in)
		if f := fields(t, err); tc.want == "" && err != nil || tc.want != "" && f[tc.want] == "" {
			t.Errorf("%+v: %v", tc.in, err)
		}
	}
}
