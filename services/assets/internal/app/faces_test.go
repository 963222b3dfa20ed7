package app_test

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"io"
	"math"
	"mime"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/media/vision/dlib/dlibtest"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/assets/internal/app"
)

type faceRec struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	ImageURLs    []string  `json:"imageUrls"`
	ThumbnailURL string    `json:"thumbnailUrl"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

func TestFaces(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	photo := testkit.FacePhoto(t)
	u1 := h.upload(org, "me.jpg", "image/jpeg", photo)
	u2 := h.upload(org, "me-again.jpg", "image/jpeg", photo)
	plain := h.upload(org, "wall.png", "image/png", testkit.GradientPNG(t, 400, 300))

	var f faceRec
	h.Must(201, "POST", "/faces", org, map[string]any{"name": "  Ann  ", "imageUrls": []string{u1, u2}}).Into(t, &f)
	if f.Name != "Ann" || len(f.ImageURLs) != 2 || f.CreatedAt.IsZero() || !f.CreatedAt.Equal(f.UpdatedAt) {
		t.Fatalf("unexpected record %+v", f)
	}
	prefix := "/orgs/" + org + "/faces/" + f.ID + "/"
	if !strings.HasSuffix(f.ImageURLs[0], prefix+"0.jpg") || !strings.HasSuffix(f.ImageURLs[1], prefix+"1.jpg") || !strings.HasSuffix(f.ThumbnailURL, prefix+"thumb.jpg") {
		t.Fatalf("records point outside our copies: %+v", f)
	}
	st, thumb := h.Fetch(f.ThumbnailURL)
	if st != 200 {
		t.Fatalf("thumbnail: %d", st)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(thumb))
	if err != nil || format != "jpeg" || cfg.Width != 256 || cfg.Height != 256 {
		t.Fatalf("thumbnail is %s %dx%d (%v), want a 256×256 JPEG", format, cfg.Width, cfg.Height, err)
	}
	if st, copy0 := h.Fetch(f.ImageURLs[0]); st != 200 || !bytes.Equal(copy0, photo) {
		t.Fatalf("stored copy: %d", st)
	}

	t.Run("an image without a face is refused, naming it", func(t *testing.T) {
		r := h.Must(400, "POST", "/faces", org, map[string]any{"name": "Nobody", "imageUrls": []string{u1, plain}})
		if r.Field("imageUrls[1]") != "no face detected" || r.Field("imageUrls[0]") != "" || !strings.Contains(r.Error, plain) {
			t.Fatalf("unexpected %s", r.Raw)
		}
		if r := h.Must(200, "GET", "/faces", org, nil); r.Page.Total != 1 {
			t.Fatalf("a refused face was stored: total %d", r.Page.Total)
		}
	})

	t.Run("validation", func(t *testing.T) {
		r := h.Must(400, "POST", "/faces", org, map[string]any{"name": "", "imageUrls": []string{"ftp://x/y.png", u1}})
		if r.Field("name") == "" || r.Field("imageUrls[0]") == "" || r.Field("imageUrls[1]") != "" {
			t.Fatalf("want name and imageUrls[0]: %s", r.Raw)
		}
		eleven := make([]string, 11)
		for i := range eleven {
			eleven[i] = u1
		}
		if r := h.Must(400, "POST", "/faces", org, map[string]any{"name": "x", "imageUrls": eleven}); r.Field("imageUrls") == "" {
			t.Fatalf("11 images: %s", r.Raw)
		}
		h.Must(400, "POST", "/faces", org, map[string]any{"name": "x", "imageUrls": []string{}})
		h.Must(400, "POST", "/faces", org, map[string]any{"name": strings.Repeat("n", 101), "imageUrls": []string{u1}})
		h.Must(400, "POST", "/faces", org, map[string]any{"name": "x", "imageUrls": []string{u1}, "extra": 1})
		h.Must(400, "PATCH", "/faces/"+f.ID, org, map[string]any{})
		h.Must(400, "PATCH", "/faces/"+f.ID, org, map[string]any{"name": " "})
		h.Must(400, "PATCH", "/faces/"+f.ID, org, map[string]any{"imageUrls": []string{}})
		h.Must(400, "PATCH", "/faces/"+f.ID, org, map[string]any{"thumbnailUrl": "https://x/y.jpg"})
	})

	t.Run("get, list and patch", func(t *testing.T) {
		var got faceRec
		h.Must(200, "GET", "/faces/"+f.ID, org, nil).Into(t, &got)
		if !reflect.DeepEqual(got, f) {
			t.Fatalf("GET differs from POST:\n%+v\n%+v", got, f)
		}
		var second faceRec
		h.Must(201, "POST", "/faces", org, map[string]any{"name": "Bob", "imageUrls": []string{u2}}).Into(t, &second)
		var list []faceRec
		r := h.Must(200, "GET", "/faces?limit=1", org, nil)
		r.Into(t, &list)
		if len(list) != 1 || list[0].ID != second.ID || r.Page.Total != 2 || !r.Page.HasMore || r.Page.Limit != 1 {
			t.Fatalf("page 1 is not the newest: %s", r.Raw)
		}
		r = h.Must(200, "GET", "/faces?limit=1&page=2", org, nil)
		r.Into(t, &list)
		if len(list) != 1 || list[0].ID != f.ID || r.Page.HasMore {
			t.Fatalf("page 2: %s", r.Raw)
		}
		h.Must(400, "GET", "/faces?limit=101", org, nil)
		h.Must(400, "GET", "/faces?page=0", org, nil)

		var renamed faceRec
		h.Must(200, "PATCH", "/faces/"+f.ID, org, map[string]any{"name": "Annie"}).Into(t, &renamed)
		if renamed.Name != "Annie" || !reflect.DeepEqual(renamed.ImageURLs, f.ImageURLs) || !renamed.UpdatedAt.After(f.UpdatedAt) || !renamed.CreatedAt.Equal(f.CreatedAt) {
			t.Fatalf("rename: %+v", renamed)
		}
		// A PATCH with a faceless photo changes nothing.
		r = h.Must(400, "PATCH", "/faces/"+f.ID, org, map[string]any{"imageUrls": []string{plain}})
		if r.Field("imageUrls[0]") != "no face detected" {
			t.Fatalf("patch without face: %s", r.Raw)
		}
		var replaced faceRec
		h.Must(200, "PATCH", "/faces/"+f.ID, org, map[string]any{"imageUrls": []string{u2}}).Into(t, &replaced)
		if len(replaced.ImageURLs) != 1 || replaced.ImageURLs[0] == f.ImageURLs[0] || replaced.ThumbnailURL == f.ThumbnailURL {
			t.Fatalf("new photos were not stored as new objects: %+v", replaced)
		}
		if st, _ := h.Fetch(replaced.ThumbnailURL); st != 200 {
			t.Fatalf("new thumbnail: %d", st)
		}
		if st, _ := h.Fetch(f.ThumbnailURL); st == 200 {
			t.Fatal("the replaced thumbnail is still stored")
		}
		f = replaced
	})

	t.Run("delete", func(t *testing.T) {
		h.Must(204, "DELETE", "/faces/"+f.ID, org, nil)
		h.Must(404, "GET", "/faces/"+f.ID, org, nil)
		h.Must(404, "DELETE", "/faces/"+f.ID, org, nil)
		h.Must(404, "PATCH", "/faces/"+f.ID, org, map[string]any{"name": "x"})
		if keys := h.Objects("orgs/" + org + "/faces/" + f.ID + "/"); len(keys) != 0 {
			t.Fatalf("objects left after delete: %v", keys)
		}
	})

	t.Run("events", func(t *testing.T) {
		evs := h.StreamEvents(events.StreamAssets)
		want := []string{events.AssetsFaceCreated, events.AssetsFaceUpdated, events.AssetsFaceUpdated, events.AssetsFaceDeleted}
		if got := typesFor(evs, f.ID); !reflect.DeepEqual(got, want) {
			t.Fatalf("events of the face: %v, want %v", got, want)
		}
		for _, e := range evs {
			if e.OrgID != org || e.Source != "assets" {
				t.Fatalf("envelope %+v", e)
			}
		}
		var c events.FaceChanged
		if err := evs[0].Decode(&c); err != nil || c.Name != "Ann" || len(c.ImageURLs) != 2 || c.ThumbnailURL == "" {
			t.Fatalf("created payload %+v %v", c, err)
		}
	})
}

// TestFaceFromExternalURL loads a face photo from a (test-allow-listed)
// website through the safe fetcher and stores our own copy.
func TestFaceFromExternalURL(t *testing.T) {
	photo := testkit.FacePhoto(t)
	srv := testkit.ServeSite(t, map[string]testkit.File{"/people/ann.jpg": {ContentType: "image/jpeg", Body: photo}})
	h := newHarness(t, "HOOKLINE_FETCH_ALLOW_HOSTS", srv.Host)
	org := newOrg()
	var f faceRec
	h.Must(201, "POST", "/faces", org, map[string]any{"name": "Ann", "imageUrls": []string{srv.URL + "/people/ann.jpg"}}).Into(t, &f)
	if !strings.Contains(f.ImageURLs[0], "/orgs/"+org+"/faces/") {
		t.Fatalf("external photo not copied: %+v", f)
	}
	st, thumb := h.Fetch(f.ThumbnailURL)
	if _, err := jpeg.Decode(bytes.NewReader(thumb)); st != 200 || err != nil {
		t.Fatalf("thumbnail: %d %v", st, err)
	}
	if srv.Hits() != 1 {
		t.Fatalf("the site was fetched %d times, want once", srv.Hits())
	}
}

// TestFacesOnEvalPhotos uploads the evaluation portraits, which dlib finds
// a face on (the camera man turned to his camera among them), and checks
// that the stored thumbnail frames the face: dlib finds it again on the
// thumbnail, whole (chin to hairline inside) and near the middle, as the
// thumbnails service will look for it there. The cup and the rocket are
// refused. With HOOKLINE_WRITE_EXAMPLES=1 the thumbnails are written to
// testdata/examples/faces.
func TestFacesOnEvalPhotos(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	model := dlibtest.Model(t)
	out := testkit.ExamplesDirIfAsked(t, "faces")
	for _, name := range []string{"camera.png", "astronaut.png"} {
		t.Run(name, func(t *testing.T) {
			u := h.upload(org, name, "image/png", testkit.EvalPhotoBytes(t, name))
			var f faceRec
			h.Must(201, "POST", "/faces", org, map[string]any{"name": name, "imageUrls": []string{u}}).Into(t, &f)
			st, thumb := h.Fetch(f.ThumbnailURL)
			if st != 200 {
				t.Fatalf("thumbnail: %d", st)
			}
			img, err := jpeg.Decode(bytes.NewReader(thumb))
			if err != nil {
				t.Fatal(err)
			}
			faces := model.Detect(img)
			if len(faces) == 0 || faces[0].Landmarks == nil {
				t.Fatalf("no face with landmarks on the thumbnail: %+v", faces)
			}
			l := faces[0].Landmarks
			b := img.Bounds()
			if chin := l[8]; !chin.In(b.Inset(8)) {
				t.Errorf("chin at %v, at or past the edge of %v", chin, b)
			}
			if cx, cy := l.Centroid(vision.NoseStart, vision.NoseEnd); math.Abs(cx-128) > 48 || math.Abs(cy-128) > 48 {
				t.Errorf("nose at (%.0f, %.0f), more than 48 px off the middle of the 256 px crop", cx, cy)
			}
			if w := l.FaceWidth(); w < 80 || w > 200 {
				t.Errorf("face %.0f px wide on the 256 px crop", w)
			}
			if out != "" {
				if err := os.WriteFile(filepath.Join(out, "thumb-"+strings.TrimSuffix(name, filepath.Ext(name))+".jpg"), thumb, 0o644); err != nil { //nolint:gosec // G306: examples are for reading
					t.Fatal(err)
				}
			}
		})
	}
	for _, name := range []string{"coffee.png", "rocket.jpg"} {
		t.Run(name, func(t *testing.T) {
			u := h.upload(org, name, mime.TypeByExtension(filepath.Ext(name)), testkit.EvalPhotoBytes(t, name))
			r := h.Must(400, "POST", "/faces", org, map[string]any{"name": name, "imageUrls": []string{u}})
			if r.Code != "invalid_request" || r.Field("imageUrls[0]") != "no face detected" || !strings.Contains(r.Error, u) {
				t.Fatalf("unexpected %s", r.Raw)
			}
		})
	}
	if r := h.Must(200, "GET", "/faces", org, nil); r.Page.Total != 2 {
		t.Fatalf("%d faces stored, want the two portraits", r.Page.Total)
	}
}

// A face model that cannot be read stops the service at start-up, naming
// the setting, rather than refusing every face later.
func TestFaceModelMissing(t *testing.T) {
	bucket := testkit.Bucket(t)
	bucket.Client(t) // removes the bucket the service makes before it fails
	env := testkit.ServiceEnv(t, testkit.Schema(t, "assets"), testkit.Namespace(t), "127.0.0.1:0", apptest.Secret,
		append(bucket.Env(), "HOOKLINE_FACE_MODEL", filepath.Join(t.TempDir(), "missing.dat"))...)
	err := app.Run(t.Context(), func(k string) string { return env[k] }, io.Discard)
	if !errors.Is(err, dlib.ErrModel) || !strings.Contains(err.Error(), "HOOKLINE_FACE_MODEL") {
		t.Fatalf("Run = %v, want a HOOKLINE_FACE_MODEL failure", err)
	}
}
