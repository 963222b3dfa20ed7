package render

import (
	"errors"
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/project"
)

func fieldOf(e *apierr.Error, name string) string {
	switch f := e.Details["fields"].(type) {
	case apierr.Fields:
		return f[name]
	case map[string]string:
		return f[name]
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

func TestValidate(t *testing.T) {
	p := project.Project{Format: project.Landscape, Status: project.Ready, Analysis: moments.Analysis{SuggestedStyle: "glow"},
		Clips: []moments.Clip{{ID: "a"}, {ID: "b"}}}
	ok, err := Validate(CreateInput{ClipID: ptr("a")}, p)
	if err != nil || ok.Format != project.Landscape || ok.Style != "glow" || len(ok.ClipIDs) != 1 || ok.Options.Layout != LayoutAuto {
		t.Fatalf("defaults: %+v %v", ok, err)
	}
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = "a"
	}
	for field, in := range map[string]CreateInput{
		"clip_ids":                  {ClipID: ptr("a"), ClipIDs: &[]string{"b"}},
		"clip_id":                   {},
		"clip_id ":                  {ClipID: ptr("zzz")},
		"clip_ids ":                 {ClipIDs: &[]string{}},
		"clip_ids  ":                {ClipIDs: &[]string{"a", "a"}},
		"clip_ids   ":               {ClipIDs: &eleven},
		"clip_ids    ":              {ClipIDs: &[]string{"a", "nope"}},
		"format":                    {ClipID: ptr("a"), Format: ptr("square")},
		"subtitle_style":            {ClipID: ptr("a"), SubtitleStyle: ptr("comic")},
		"brand_id":                  {ClipID: ptr("a"), BrandID: ptr("x")},
		"options.brandFrame":        {ClipID: ptr("a"), Options: &OptionsIn{BrandFrame: ptr(true)}},
		"options.endCardText":       {ClipID: ptr("a"), Options: &OptionsIn{EndCardText: ptr(strings.Repeat("ü", 121))}},
		"options.layout":            {ClipID: ptr("a"), Options: &OptionsIn{Layout: ptr("grid")}},
		"options.censor":            {ClipID: ptr("a"), Options: &OptionsIn{Censor: ptr("beep")}},
		"options.censor ":           {ClipID: ptr("a"), Options: &OptionsIn{Censor: ptr("")}},
		"options.captionLanguage":   {ClipID: ptr("a"), Options: &OptionsIn{CaptionLanguage: ptr("spa")}},
		"options.captionLanguage ":  {ClipID: ptr("a"), Options: &OptionsIn{CaptionLanguage: ptr("ES")}},
		"options.captionLanguage  ": {ClipID: ptr("a"), Options: &OptionsIn{CaptionLanguage: ptr("")}},
	} {
		_, err := Validate(in, p)
		var ae *apierr.Error
		if !errors.As(err, &ae) || fieldOf(ae, strings.TrimSpace(field)) == "" {
			t.Errorf("%s: %v", field, err)
		}
	}
	if _, err := Validate(CreateInput{ClipIDs: &[]string{"a", "b"}, Options: &OptionsIn{EndCardText: ptr(strings.Repeat("ü", 120))}}, p); err != nil {
		t.Errorf("120 characters: %v", err)
	}
	if c, err := Validate(CreateInput{ClipID: ptr("a"), Options: &OptionsIn{CaptionLanguage: ptr("es")}}, p); err != nil || c.Options.CaptionLanguage != "es" {
		t.Errorf("captionLanguage es: %+v %v", c.Options, err)
	}
	for in, want := range map[*OptionsIn]Layout{{}: LayoutAuto, {Layout: ptr("split")}: LayoutSplit, {Layout: ptr("fill")}: LayoutFill} {
		if c, err := Validate(CreateInput{ClipID: ptr("a"), Options: in}, p); err != nil || c.Options.Layout != want {
			t.Errorf("layout %v: %q %v, want %q", in.Layout, c.Options.Layout, err, want)
		}
	}
	for in, want := range map[*OptionsIn]censor.Mode{{}: censor.None, {Censor: ptr("bleep")}: censor.Bleep, {Censor: ptr("mute")}: censor.Mute} {
		if c, err := Validate(CreateInput{ClipID: ptr("a"), Options: in}, p); err != nil || c.Options.Censor != want {
			t.Errorf("censor %v: %q %v, want %q", in.Censor, c.Options.Censor, err, want)
		}
	}
	if c, err := Validate(CreateInput{ClipID: ptr("a")}, p); err != nil || c.Options.Censor != censor.None {
		t.Errorf("no options: censor %q %v", c.Options.Censor, err)
	}
}
