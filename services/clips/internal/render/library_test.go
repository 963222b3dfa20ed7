package render

import "testing"

func TestPickAndMatch(t *testing.T) {
	tracks := []Track{{ID: "a", Moods: []string{"calm"}}, {ID: "b", Moods: []string{"energetic"}}, {ID: "c", Moods: []string{"energetic"}}}
	if got, _ := Pick(tracks, "calm", "clip_1"); got.ID != "a" {
		t.Errorf("calm picked %s", got.ID)
	}
	first, _ := Pick(tracks, "energetic", "clip_2")
	if again, _ := Pick(tracks, "energetic", "clip_2"); again.ID != first.ID || first.ID == "a" {
		t.Errorf("energetic picked %s then %s", first.ID, again.ID)
	}
	if got, ok := Pick(tracks, "funny", "clip_3"); !ok || got.ID == "" {
		t.Error("no fallback to any track")
	}
	if _, ok := Pick(nil, "calm", "x"); ok {
		t.Error("a pick from an empty library")
	}
	lib := []Footage{{ID: "bread", Keywords: []string{"sourdough starter", "bread"}}, {ID: "bike", Keywords: []string{"bike chains"}}}
	if f, ok := Match(lib, "the bike chain"); !ok || f.ID != "bike" {
		t.Errorf("bike chain matched %v %v", f.ID, ok)
	}
	if _, ok := Match(lib, "roman aqueduct"); ok {
		t.Error("matched footage without a shared word")
	}
}

func TestValidateLibraryItems(t *testing.T) {
	s := func(v string) *string { return &v }
	if _, _, moods, err := ValidateTrack(TrackInput{Name: s("Tone"), URL: s("https://x/t.mp3"), Moods: []string{"calm", "calm"}}); err != nil || len(moods) != 1 {
		t.Errorf("track: %v %v", moods, err)
	}
	for _, in := range []TrackInput{{}, {Name: s("x"), URL: s("ftp://x"), Moods: []string{"calm"}}, {Name: s("x"), URL: s("https://x"), Moods: []string{"sleepy"}}} {
		if _, _, _, err := ValidateTrack(in); err == nil {
			t.Errorf("track %+v accepted", in)
		}
	}
	if _, _, _, err := ValidateFootage(FootageInput{Name: s("x"), URL: s("https://x/a.mp4"), Keywords: []string{" "}}); err == nil {
		t.Error("blank keyword accepted")
	}
}
