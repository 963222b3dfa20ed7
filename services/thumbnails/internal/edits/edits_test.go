package edits

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"reflect"
	"slices"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// values is a body as sent: strings, and lists of strings.
type values map[string]any

// parse decodes v into op's body as the transport decodes it (strictly:
// a field the body does not have is an error) and parses it.
func parse(op Op, v values, provider bool) (*Request, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	b := op.Body()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(b); err != nil {
		return nil, fmt.Errorf("%s's body refuses %s: %w", op.Name(), data, err)
	}
	return b.Parse(provider)
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

// The registry holds every op once, each with a body that holds every
// field its API documents (the transport refuses any other as unknown:
// httpapi's TestEditsAreDocumented holds the bodies to the document).
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
		body, ok := validBodies[name]
		if !ok {
			t.Fatalf("no valid body for %s", name)
		}
		if _, err := parse(op, body, false); err != nil {
			t.Errorf("%s refuses %v: %v", name, body, err)
		}
		if b := op.Body(); b == nil || reflect.TypeOf(b).Kind() != reflect.Pointer || reflect.TypeOf(b).Elem().Kind() != reflect.Struct {
			t.Errorf("%s's body %T is not a pointer to a struct to decode into", name, b)
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
		{name: "a cut-out for the grammar's background", op: "background-replace", body: values{"imageUrl": "u", "backgroundPrompt": "sunset"},
			provider: true, check: func(t *testing.T, r *Request) {
				if !r.Cutout || !r.Faces || r.Provider {
					t.Errorf("%+v", r)
				}
			}},
		{name: "no cut-out for the provider's background", op: "background-replace", body: values{"imageUrl": "u", "backgroundPrompt": "qwerty"},
			provider: true, check: func(t *testing.T, r *Request) {
				if r.Cutout || r.Faces || !r.Provider {
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
			r, err := parse(lookup(t, tt.op), tt.body, tt.provider)
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

// provider is an image provider that records what it is asked.
type provider struct {
	varied []engine.Request
}

func (*provider) Name() string { return "fake" }

func (p *provider) Vary(_ context.Context, req engine.Request) (engine.Result, error) {
	p.varied = append(p.varied, req)
	return engine.Result{ContentType: "image/png"}, nil
}

func picture(w, h int) Picture {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	img.SetNRGBA(0, 0, color.NRGBA{byte(w), byte(h), 0, 255}) // tell pictures apart
	return Picture{Img: img, Width: w, Height: h, Data: []byte{byte(w)}}
}

// A face swap asks for its face picture by the field that named it, and
// names the field of a picture without a face with landmarks.
func TestFaceSwapCheck(t *testing.T) {
	src, face := picture(64, 64), picture(32, 32)
	a := vision.Face{Rect: image.Rect(10, 10, 30, 30), Landmarks: &vision.Landmarks{}}
	boxOnly := vision.Face{Rect: image.Rect(10, 10, 30, 30)}
	const saved = "6f1c1d9e-0000-4000-8000-000000000000"
	check := func(body values, srcFaces, faceFaces []vision.Face) (*Request, error) {
		t.Helper()
		r, err := parse(FaceSwap{}, body, false)
		if err != nil {
			t.Fatal(err)
		}
		return r, r.Check(&Inputs{Sources: []Picture{src}, Faces: [][]vision.Face{srcFaces},
			Face: &FacePicture{Picture: face, Faces: faceFaces}})
	}
	r, err := check(values{"imageUrl": "u", "faceId": saved}, []vision.Face{a}, []vision.Face{a})
	if err != nil || *r.Face != (FaceRef{Source: Source{Field: "faceId"}, SavedID: saved}) {
		t.Errorf("saved face: %v, asked for %+v", err, r.Face)
	}
	r, err = check(values{"imageUrl": "u", "faceImageUrl": " http://x/f.jpg "}, []vision.Face{a}, []vision.Face{a})
	if err != nil || *r.Face != (FaceRef{Source: Source{Field: "faceImageUrl", URL: "http://x/f.jpg"}}) {
		t.Errorf("face picture: %v, asked for %+v", err, r.Face)
	}
	for _, c := range []struct {
		body                values
		srcFaces, faceFaces []vision.Face
		field               string
	}{
		{values{"imageUrl": "u", "faceImageUrl": "http://x/f.jpg"}, nil, []vision.Face{a}, "imageUrl"},
		{values{"imageUrl": "u", "faceImageUrl": "http://x/plain.jpg"}, []vision.Face{a}, nil, "faceImageUrl"},
		{values{"imageUrl": "u", "faceId": saved}, []vision.Face{a}, nil, "faceId"},
		// A face the swap cannot align (no landmarks) is no face to it.
		{values{"imageUrl": "u", "faceImageUrl": "http://x/f.jpg"}, []vision.Face{boxOnly}, []vision.Face{a}, "imageUrl"},
		{values{"imageUrl": "u", "faceImageUrl": "http://x/f.jpg"}, []vision.Face{a}, []vision.Face{boxOnly}, "faceImageUrl"},
	} {
		if _, err := check(c.body, c.srcFaces, c.faceFaces); fieldsOf(err)[c.field] == "" {
			t.Errorf("%v: %v, want a 400 naming %s", c.body, err, c.field)
		}
	}
}

// The background edits draw on the cut-out the service hands them: a
// removal is that cut-out as a PNG of its size.
func TestBackgroundRemoveRendersTheCutout(t *testing.T) {
	r, err := parse(BackgroundRemove{}, values{"imageUrl": "u"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cutout || !r.Faces || !r.Pixels {
		t.Fatalf("%+v", r)
	}
	src := picture(40, 30)
	cut := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	for y := 10; y < 20; y++ {
		for x := 10; x < 20; x++ {
			cut.SetNRGBA(x, y, color.NRGBA{10, 200, 10, 255})
		}
	}
	cut.SetNRGBA(3, 4, color.NRGBA{200, 10, 10, 128})
	res, err := r.Render(t.Context(), &provider{}, &Inputs{Sources: []Picture{src}, Cutout: cut})
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(res.Data))
	if err != nil || res.ContentType != encode.ContentTypePNG || res.Width != 40 || res.Height != 30 {
		t.Fatalf("%s %d×%d: %v", res.ContentType, res.Width, res.Height, err)
	}
	if c := color.NRGBAModel.Convert(got.At(3, 4)); c != (color.NRGBA{200, 10, 10, 128}) {
		t.Errorf("cut-out pixel became %v", c)
	}
}

// Issue 33: a cut-out that separated nothing (the picture wholly opaque,
// or nothing left) is a 400 naming imageUrl from both background edits,
// never the picture answered as its cut-out.
func TestBackgroundEditsWithoutASubject(t *testing.T) {
	src := picture(40, 30)
	opaque := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	for i := range opaque.Pix {
		opaque.Pix[i] = 255
	}
	for _, c := range []struct {
		op   Op
		body values
	}{
		{BackgroundRemove{}, values{"imageUrl": "u"}},
		{BackgroundReplace{}, values{"imageUrl": "u", "backgroundPrompt": "red"}},
	} {
		r, err := parse(c.op, c.body, false)
		if err != nil {
			t.Fatal(err)
		}
		for name, cut := range map[string]*image.NRGBA{"unchanged": opaque, "empty": image.NewNRGBA(opaque.Rect)} {
			_, err := r.Render(t.Context(), &provider{}, &Inputs{Sources: []Picture{src}, Cutout: cut})
			if fieldsOf(err)["imageUrl"] == "" {
				t.Errorf("%T of a cut-out %s: %v, want a 400 naming imageUrl", c.op, name, err)
			}
		}
	}
}

// An upscale is refused by its source's header before libvips decodes it.
func TestUpscaleCheck(t *testing.T) {
	r, err := parse(Upscale{}, values{"imageUrl": "u", "scale": "4x"}, false)
	if err != nil {
		t.Fatal(err)
	}
	for size, ok := range map[image.Point]bool{{1280, 720}: true, {2000, 1300}: false} {
		in := &Inputs{Sources: []Picture{{Width: size.X, Height: size.Y}}}
		if err := r.Check(in); (err == nil) != ok || !ok && fieldsOf(err)["scale"] == "" {
			t.Errorf("%v at 4x: %v", size, err)
		}
	}
}

// The provider is shown the first source as the parent, the second and
// the references as references, on a 16:9 canvas unless told otherwise.
func TestProviderRun(t *testing.T) {
	r, err := parse(Combine{}, values{"imageUrl1": "a", "imageUrl2": "b", "prompt": "a collage"}, true)
	if err != nil {
		t.Fatal(err)
	}
	a, b, ref := picture(8, 8), picture(9, 9), picture(10, 10)
	e := &provider{}
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
