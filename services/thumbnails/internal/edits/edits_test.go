package edits

import (
	"context"
	"errors"
	"image"
	"image/color"
	"reflect"
	"slices"
	"testing"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/vision"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// values is a decoded body: strings, and lists of strings.
type values map[string]any

func (v values) String(name string) *string {
	if s, ok := v[name].(string); ok {
		return &s
	}
	return nil
}

func (v values) Strings(name string) []string {
	s, _ := v[name].([]string)
	return s
}

func lookup(t *testing.T, name string) Op {
	t.Helper()
	for _, op := range All() {
		if string(op.Name()) == name {
			return op
		}
	}
	t.Fatalf("no op %q", name)
	return nil
}

// validBodies is a body each op accepts, every optional field sent.
var validBodies = map[string]values{
	"edit": {"imageUrl": "http://x/a.jpg", "prompt": "mirror", "referenceImageUrls": []string{"http://x/r.jpg"},
		"aspectRatio": "16:9"},
	"face-swap":          {"imageUrl": "http://x/a.jpg", "faceImageUrl": "http://x/f.jpg"},
	"background-remove":  {"imageUrl": "http://x/a.jpg"},
	"background-replace": {"imageUrl": "http://x/a.jpg", "backgroundPrompt": "sunset", "aspectRatio": "9:16"},
	"color-enhance":      {"imageUrl": "http://x/a.jpg", "preset": "warm", "intensity": "subtle"},
	"upscale":            {"imageUrl": "http://x/a.jpg", "scale": "2x"},
	"filter":             {"imageUrl": "http://x/a.jpg", "filterPrompt": "sepia"},
	"combine":            {"imageUrl1": "http://x/a.jpg", "imageUrl2": "http://x/b.jpg", "prompt": "versus", "aspectRatio": "16:9"},
}

// The registry holds every op once, each with a body schema: Parse reads
// the same fields, and only those, whatever the body holds, which is what
// lets the transport refuse any other field as unknown.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, op := range All() {
		name := string(op.Name())
		if seen[name] || name == "" {
			t.Fatalf("op name %q is empty or repeated", name)
		}
		seen[name] = true
		// The credit saga reserves one credit a result.
		if c := op.Credits(); c != 0 && c != 1 {
			t.Errorf("%s costs %d credits; the saga charges 0 or 1", name, c)
		}
		fields := Fields(op)
		if len(fields) == 0 {
			t.Errorf("%s reads no field", name)
		}
		body, ok := validBodies[name]
		if !ok {
			t.Fatalf("no valid body for %s", name)
		}
		b := NewBody(body)
		if _, err := op.Parse(b, false); err != nil {
			t.Errorf("%s refuses %v: %v", name, body, err)
		}
		if !reflect.DeepEqual(b.read, fields) {
			t.Errorf("%s read %v from a valid body, %v from an empty one", name, b.read, fields)
		}
		for _, f := range fields {
			if _, list := body[f.Name].([]string); list != f.List {
				t.Errorf("%s: field %s read as list=%v", name, f.Name, f.List)
			}
		}
	}
	if len(seen) != len(validBodies) {
		t.Errorf("%d ops, %d test bodies", len(seen), len(validBodies))
	}
	if got := Path(lookup(t, "edit")); got != "/thumbnails/edit" {
		t.Errorf("edit path %s", got)
	}
	if got := Path(lookup(t, "face-swap")); got != "/thumbnails/edit/face-swap" {
		t.Errorf("face-swap path %s", got)
	}
	if got := Operation(lookup(t, "combine")); got != "thumbnails.combine" {
		t.Errorf("combine operation %s", got)
	}
}

// fieldsOf returns the fields a 400 names.
func fieldsOf(err error) map[string]string {
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		return nil
	}
	f, _ := ae.Details["fields"].(map[string]string)
	return f
}

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		op       string
		body     values
		provider bool
		// fields is the 400's fields; code the error's code otherwise.
		fields map[string]string
		code   apierr.Code
		check  func(t *testing.T, r *Request)
	}{
		{name: "every field problem at once", op: "combine", body: values{"imageUrl1": " ", "aspectRatio": "4:3"},
			fields: map[string]string{"imageUrl1": "is required", "imageUrl2": "is required", "prompt": "is required",
				"aspectRatio": `must be "16:9" or "9:16"`}},
		{name: "too many references", op: "edit",
			body:   values{"imageUrl": "u", "prompt": "mirror", "referenceImageUrls": make([]string, 11)},
			fields: map[string]string{"referenceImageUrls": "at most 10 images, got 11"}},
		{name: "a prompt outside the grammar", op: "edit", body: values{"imageUrl": "u", "prompt": "turn him into a cat"},
			code: apierr.UnsupportedPrompt},
		{name: "the grammar's edit", op: "edit", body: values{"imageUrl": " u ", "prompt": " mirror ", "aspectRatio": "9:16"},
			provider: true, check: func(t *testing.T, r *Request) {
				if r.Provider || !r.Pixels || !r.Faces || r.Prompt != "mirror" || r.Aspect != thumbnail.Portrait ||
					!reflect.DeepEqual(r.Sources, []Source{{"imageUrl", "u"}}) ||
					!reflect.DeepEqual(r.Params, map[string]string{"prompt": "mirror", "aspectRatio": "9:16"}) {
					t.Errorf("%+v", r)
				}
			}},
		{name: "the provider's edit", op: "combine", body: values{"imageUrl1": "a", "imageUrl2": "b", "prompt": "a collage of nine"},
			provider: true, check: func(t *testing.T, r *Request) {
				if _, ok := r.run.(providerRun); !ok || !r.Provider || !r.Pixels || r.Faces {
					t.Errorf("%+v", r)
				}
			}},
		{name: "a filter has no provider", op: "filter", body: values{"imageUrl": "u", "filterPrompt": "oil painting"},
			provider: true, code: apierr.UnsupportedPrompt},
		{name: "the blur needs faces", op: "filter", body: values{"imageUrl": "u", "filterPrompt": "blur background"},
			check: func(t *testing.T, r *Request) {
				if !r.Faces || !r.Pixels {
					t.Errorf("%+v", r)
				}
			}},
		{name: "sepia needs none", op: "filter", body: values{"imageUrl": "u", "filterPrompt": "sepia"},
			check: func(t *testing.T, r *Request) {
				if r.Faces || !r.Pixels || r.Prompt != "sepia" {
					t.Errorf("%+v", r)
				}
			}},
		{name: "libvips reads the pixels", op: "upscale", body: values{"imageUrl": "u", "scale": "4x"},
			check: func(t *testing.T, r *Request) {
				if r.Faces || r.Pixels || r.Prompt != "upscale: 4x" || r.Params["scale"] != "4x" {
					t.Errorf("%+v", r)
				}
			}},
		{name: "a scale outside the two", op: "upscale", body: values{"imageUrl": "u", "scale": "3x"},
			fields: map[string]string{"scale": `must be "2x" or "4x"`}},
		{name: "the default intensity", op: "color-enhance", body: values{"imageUrl": "u", "preset": "warm"},
			check: func(t *testing.T, r *Request) {
				if r.Pixels || r.Prompt != "color-enhance: warm, medium" || r.Params["intensity"] != "medium" {
					t.Errorf("%+v", r)
				}
			}},
		{name: "an empty intensity", op: "color-enhance", body: values{"imageUrl": "u", "preset": "sparkly", "intensity": ""},
			fields: map[string]string{"preset": "must be one of vibrant, dramatic, warm, cool, high-contrast, cinematic",
				"intensity": `must be "subtle", "medium" or "strong"`}},
		{name: "both faces", op: "face-swap", body: values{"imageUrl": "u", "faceImageUrl": "f", "faceId": "x"},
			fields: map[string]string{"faceImageUrl": "send exactly one of faceImageUrl and faceId, not both",
				"faceId": "send exactly one of faceImageUrl and faceId, not both"}},
		{name: "a saved face", op: "face-swap", body: values{"imageUrl": "u", "faceId": "6F1C1D9E-0000-4000-8000-000000000000"},
			check: func(t *testing.T, r *Request) {
				const id = "6f1c1d9e-0000-4000-8000-000000000000"
				if !reflect.DeepEqual(r.FaceIDs, []string{id}) || r.Params["faceId"] != id || !r.Faces {
					t.Errorf("%+v", r)
				}
			}},
		{name: "a background outside the grammar", op: "background-replace", body: values{"imageUrl": "u", "backgroundPrompt": "qwerty"},
			code: apierr.UnsupportedPrompt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := lookup(t, tt.op).Parse(NewBody(tt.body), tt.provider)
			switch {
			case tt.fields != nil:
				if got := fieldsOf(err); !reflect.DeepEqual(got, tt.fields) {
					t.Fatalf("fields %v (%v), want %v", got, err, tt.fields)
				}
			case tt.code != "":
				if !apierr.Is(err, tt.code) {
					t.Fatalf("error %v, want %s", err, tt.code)
				}
			case err != nil:
				t.Fatal(err)
			default:
				tt.check(t, r)
			}
		})
	}
}

// env is an Env of fixed pictures: the face pictures by address, the
// saved faces' addresses by id.
type env struct {
	pictures map[string]Picture
	saved    map[string]string
	faces    map[image.Image][]vision.Face
	varied   []engine.Request
}

func (e *env) Load(_ context.Context, field, url string) (Picture, error) {
	p, ok := e.pictures[url]
	if !ok {
		return Picture{}, apierr.Field(field, "cannot be fetched")
	}
	return p, nil
}

func (e *env) SavedFace(_ context.Context, id string) (string, error) {
	u, ok := e.saved[id]
	if !ok {
		return "", apierr.New(apierr.NotFound, "faceId: face not found")
	}
	return u, nil
}

func (e *env) Faces(img image.Image) []vision.Face { return e.faces[img] }

func (e *env) Cut(context.Context, image.Image, []vision.Face) (*image.NRGBA, error) {
	return nil, errors.New("not used")
}

func (e *env) Vary(_ context.Context, req engine.Request) (engine.Result, error) {
	e.varied = append(e.varied, req)
	return engine.Result{ContentType: "image/png"}, nil
}

func picture(w, h int) Picture {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	img.SetNRGBA(0, 0, color.NRGBA{byte(w), byte(h), 0, 255}) // tell pictures apart
	return Picture{Img: img, Width: w, Height: h, Data: []byte{byte(w)}}
}

// A face swap loads its face picture, a saved face's by its address, and
// names the field of a picture without a face with landmarks.
func TestFaceSwapCheck(t *testing.T) {
	src, face, faceless := picture(64, 64), picture(32, 32), picture(16, 16)
	a := vision.Face{Rect: image.Rect(10, 10, 30, 30), Landmarks: &vision.Landmarks{}}
	boxOnly := vision.Face{Rect: image.Rect(10, 10, 30, 30)}
	e := &env{
		pictures: map[string]Picture{"http://x/f.jpg": face, "http://x/plain.jpg": faceless},
		saved:    map[string]string{"6f1c1d9e-0000-4000-8000-000000000000": "http://x/f.jpg"},
		faces:    map[image.Image][]vision.Face{face.Img: {a}},
	}
	check := func(body values, srcFaces []vision.Face) error {
		t.Helper()
		r, err := FaceSwap{}.Parse(NewBody(body), false)
		if err != nil {
			t.Fatal(err)
		}
		return r.Check(t.Context(), e, &Inputs{Sources: []Picture{src}, Faces: [][]vision.Face{srcFaces}})
	}
	if err := check(values{"imageUrl": "u", "faceId": "6f1c1d9e-0000-4000-8000-000000000000"}, []vision.Face{a}); err != nil {
		t.Errorf("saved face: %v", err)
	}
	for _, c := range []struct {
		body     values
		srcFaces []vision.Face
		field    string
	}{
		{values{"imageUrl": "u", "faceImageUrl": "http://x/f.jpg"}, nil, "imageUrl"},
		{values{"imageUrl": "u", "faceImageUrl": "http://x/plain.jpg"}, []vision.Face{a}, "faceImageUrl"},
		{values{"imageUrl": "u", "faceImageUrl": "http://x/gone.jpg"}, []vision.Face{a}, "faceImageUrl"},
		// A face the swap cannot align (no landmarks) is no face to it.
		{values{"imageUrl": "u", "faceImageUrl": "http://x/f.jpg"}, []vision.Face{boxOnly}, "imageUrl"},
	} {
		if err := check(c.body, c.srcFaces); fieldsOf(err)[c.field] == "" {
			t.Errorf("%v: %v, want a 400 naming %s", c.body, err, c.field)
		}
	}
	if err := check(values{"imageUrl": "u", "faceId": "7f1c1d9e-0000-4000-8000-000000000000"}, []vision.Face{a}); !apierr.Is(err, apierr.NotFound) {
		t.Errorf("unknown saved face: %v", err)
	}
}

// An upscale is refused by its source's header before libvips decodes it.
func TestUpscaleCheck(t *testing.T) {
	r, err := Upscale{}.Parse(NewBody(values{"imageUrl": "u", "scale": "4x"}), false)
	if err != nil {
		t.Fatal(err)
	}
	for size, ok := range map[image.Point]bool{{1280, 720}: true, {2000, 1300}: false} {
		in := &Inputs{Sources: []Picture{{Width: size.X, Height: size.Y}}}
		if err := r.Check(t.Context(), &env{}, in); (err == nil) != ok || !ok && fieldsOf(err)["scale"] == "" {
			t.Errorf("%v at 4x: %v", size, err)
		}
	}
}

// The provider is shown the first source as the parent, the second and
// the references as references, on a 16:9 canvas unless told otherwise.
func TestProviderRun(t *testing.T) {
	r, err := Combine{}.Parse(NewBody(values{"imageUrl1": "a", "imageUrl2": "b", "prompt": "a collage"}), true)
	if err != nil {
		t.Fatal(err)
	}
	a, b, ref := picture(8, 8), picture(9, 9), picture(10, 10)
	e := &env{}
	if _, err := r.Render(t.Context(), e, &Inputs{Sources: []Picture{a, b}, References: []Picture{ref}}); err != nil {
		t.Fatal(err)
	}
	if len(e.varied) != 1 {
		t.Fatalf("%d provider calls", len(e.varied))
	}
	req := e.varied[0]
	refs := []image.Image{}
	for _, p := range req.References {
		refs = append(refs, p.Img)
	}
	if req.Prompt != "a collage" || req.Tweak != "a collage" || req.Aspect != thumbnail.Landscape || req.Parent.Img != a.Img ||
		!slices.Equal(refs, []image.Image{b.Img, ref.Img}) {
		t.Errorf("provider asked %+v", req)
	}
}
