package render

import (
	"errors"
	"hash/fnv"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"hookline.dev/pkg/platform/apierr"
)

// ErrNoTrack: no such music track.
var ErrNoTrack = errors.New("render: music track not found")

// Moods are the moods a track may be tagged with: the clips' moods.
var Moods = []string{"funny", "energetic", "emotional", "informative", "intriguing", "calm"}

// Track is a music track of the library.
type Track struct {
	ID, Name  string
	Moods     []string
	Key       string
	Duration  float64
	SourceURL string
	CreatedAt time.Time
}

// TrackInput is the body of POST /admin/v1/music-tracks.
type TrackInput struct {
	Name  *string
	URL   *string
	Moods []string
}

// ValidateTrack checks a track to add.
func ValidateTrack(in TrackInput) (name, url string, moods []string, err error) {
	f := apierr.Fields{}
	name, url = nameAndURL(f, in.Name, in.URL, "an audio file")
	if len(in.Moods) == 0 || len(in.Moods) > len(Moods) {
		f.Add("moods", "one or more of "+strings.Join(Moods, ", "))
	}
	for _, m := range in.Moods {
		if !slices.Contains(Moods, m) {
			f.Add("moods", "one or more of "+strings.Join(Moods, ", "))
			break
		}
		if !slices.Contains(moods, m) {
			moods = append(moods, m)
		}
	}
	return name, url, moods, f.Err()
}

// nameAndURL checks the name and the http(s) address of a library item
// (what the address must serve).
func nameAndURL(f apierr.Fields, name, url *string, what string) (string, string) {
	var n, u string
	if name == nil || strings.TrimSpace(*name) == "" || utf8.RuneCountInString(*name) > 100 {
		f.Add("name", "required, at most 100 characters")
	} else {
		n = strings.TrimSpace(*name)
	}
	if url == nil || !strings.HasPrefix(*url, "https://") && !strings.HasPrefix(*url, "http://") {
		f.Add("url", "required: an http(s) address of "+what)
	} else {
		u = *url
	}
	return n, u
}

// Pick chooses a clip's track: one tagged with the clip's mood when there
// is one, else any; the same clip always gets the same track.
func Pick(tracks []Track, mood, clipID string) (Track, bool) {
	if len(tracks) == 0 {
		return Track{}, false
	}
	var fit []Track
	for _, t := range tracks {
		if slices.Contains(t.Moods, mood) {
			fit = append(fit, t)
		}
	}
	if len(fit) == 0 {
		fit = tracks
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(clipID))
	return fit[int(h.Sum32()%uint32(len(fit)))], true //nolint:gosec // the index is below len(fit)
}
