package combine

import (
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

func TestParseAccepts(t *testing.T) {
	for prompt, want := range map[string]Layout{
		"side by side":                              {Kind: SideBySide},
		"Put them side-by-side please":              {Kind: SideBySide},
		"place the two images next to each other":   {Kind: SideBySide},
		"split screen":                              {Kind: SideBySide},
		"stacked":                                   {Kind: SideBySide, Stacked: true},
		"side by side, top and bottom":              {Kind: SideBySide, Stacked: true},
		"before and after":                          {Kind: BeforeAfter},
		"Before/After":                              {Kind: BeforeAfter},
		"before & after, vertical":                  {Kind: BeforeAfter, Stacked: true},
		"before vs. after side by side":             {Kind: BeforeAfter},
		"versus":                                    {Kind: Versus},
		"compare the two pictures":                  {Kind: Versus},
		"vs":                                        {Kind: Versus},
		"image 1 vs image 2":                        {Kind: Versus},
		"iPhone vs Android":                         {Kind: Versus, Names: [2]string{"iPhone", "Android"}},
		"Batman v. Superman, stacked":               {Kind: Versus, Stacked: true, Names: [2]string{"Batman", "Superman"}},
		"the old logo versus the new logo":          {Kind: Versus, Names: [2]string{"old logo", "new logo"}},
		"side by side: Real Madrid vs FC Barcelona": {Kind: Versus, Names: [2]string{"Real Madrid", "FC Barcelona"}},
		"my first ever video from a long time ago vs today": {Kind: Versus},
		"🔥 vs 💧":                         {Kind: Versus},
		"picture in picture":             {Kind: PictureInPicture, Corner: BottomRight},
		"PiP in the top-left":            {Kind: PictureInPicture, Corner: TopLeft},
		"inset, upper right corner":      {Kind: PictureInPicture, Corner: TopRight},
		"picture-in-picture bottom left": {Kind: PictureInPicture, Corner: BottomLeft},
		// Free text: the first layout wins, words that do not fit it are
		// ignored.
		"side by side with a red glow":     {Kind: SideBySide},
		"before and after versus":          {Kind: BeforeAfter},
		"pip side by side":                 {Kind: PictureInPicture, Corner: BottomRight},
		"side by side top-left":            {Kind: SideBySide},
		"pip stacked":                      {Kind: PictureInPicture, Corner: BottomRight},
		"pip top-left bottom-right":        {Kind: PictureInPicture, Corner: TopLeft},
		"not side by side, stacked please": {Kind: SideBySide, Stacked: true},
	} {
		l, err := Parse(prompt)
		if err != nil {
			t.Errorf("%q: %v", prompt, err)
			continue
		}
		if l != want {
			t.Errorf("%q: %+v, want %+v", prompt, l, want)
		}
		if again, err := Parse(l.String()); err != nil || again != l {
			t.Errorf("%q → %q re-parses to %+v, %v", prompt, l.String(), again, err)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, prompt := range []string{
		"", "   ", "combine them", "a collage of nine", "merge them artistically", "vsx",
		"not side by side", "top-left", "picture in picture \xff",
	} {
		_, err := Parse(prompt)
		if !apierr.Is(err, apierr.UnsupportedPrompt) {
			t.Errorf("%q: %v, want unsupported_prompt", prompt, err)
			continue
		}
		if !strings.Contains(err.Error(), "accepted layouts") {
			t.Errorf("%q: the refusal does not list the layouts: %v", prompt, err)
		}
	}
}

func TestStringForms(t *testing.T) {
	for l, want := range map[Layout]string{
		{Kind: SideBySide}:                               "side by side",
		{Kind: SideBySide, Stacked: true}:                "side by side, stacked",
		{Kind: BeforeAfter}:                              "before and after",
		{Kind: Versus, Names: [2]string{"Cats", "Dogs"}}: "Cats vs Dogs",
		{Kind: PictureInPicture, Corner: TopRight}:       "picture-in-picture top-right",
	} {
		if got := l.String(); got != want {
			t.Errorf("%+v: %q, want %q", l, got, want)
		}
	}
}

func FuzzParseCombine(f *testing.F) {
	for _, s := range []string{
		"side by side", "before/after stacked", "a vs b", "pip top-right", "x before, vs after y",
		"Real Madrid vs. FC Barcelona; vertical", "compare them", "inset upper left corner",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			if !apierr.Is(err, apierr.UnsupportedPrompt) {
				t.Fatalf("%q: %v is not unsupported_prompt", s, err)
			}
			return
		}
		if again, err := Parse(l.String()); err != nil || again != l {
			t.Fatalf("%q → %q re-parses to %+v, %v; was %+v", s, l.String(), again, err, l)
		}
	})
}
