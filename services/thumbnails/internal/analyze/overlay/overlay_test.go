package overlay

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // the sample face
	"strings"
	"testing"

	xdraw "golang.org/x/image/draw"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
)

// A face on the left of a dark frame: the text goes right, in a light
// colour, and says what the prompt says.
func TestSuggestAvoidsTheFace(t *testing.T) {
	photo, det := facePhoto(t)
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	draw.Draw(img, img.Bounds(), &image.Uniform{C: color.RGBA{R: 20, G: 24, B: 40, A: 255}}, image.Point{}, draw.Src)
	xdraw.CatmullRom.Scale(img, image.Rect(40, 60, 440, 660), photo, photo.Bounds(), draw.Src, nil)
	faces := det.Detect(img)
	if len(faces) == 0 {
		t.Fatal("no face found")
	}
	ss := Suggest(Input{Img: img, Faces: faces, Saliency: vision.Saliency(img), Prompt: `shocked man reacts to 3 solar panel mistakes, title "WORST ROOF EVER"`, FaceName: "Sam"})
	if len(ss) < 3 || len(ss) > 5 {
		t.Fatalf("%d suggestions", len(ss))
	}
	for _, s := range ss[:2] {
		if strings.Contains(s.Placement, "left") || s.Placement == "center" {
			t.Errorf("suggestion over the face: %+v", s)
		}
		if s.Color == "#111111" || s.FontSize < 36 || s.FontSize > 180 || s.Reason == "" {
			t.Errorf("suggestion %+v", s)
		}
	}
	all := ""
	for _, s := range ss {
		all += s.Text + "|"
	}
	if !strings.Contains(all, "WORST ROOF EVER") || !strings.Contains(all, "SAM") {
		t.Errorf("texts %s", all)
	}
}

func TestValidate(t *testing.T) {
	s := func(v string) *string { return &v }
	if _, _, _, err := Validate(nil, s("x"), nil); err == nil {
		t.Error("no imageUrl accepted")
	}
	if _, _, _, err := Validate(s("https://x/a.jpg"), s(" "), nil); err == nil {
		t.Error("blank prompt accepted")
	}
	if _, _, _, err := Validate(s("https://x/a.jpg"), s("ok"), s(strings.Repeat("n", 61))); err == nil {
		t.Error("long face name accepted")
	}
}

// Text already on the picture counts against a region like a busy
// background: on an even frame with a caption across its top-left
// quarter, the regions under the caption come last.
func TestSuggestAvoidsExistingText(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	draw.Draw(img, img.Bounds(), &image.Uniform{C: color.RGBA{R: 30, G: 60, B: 90, A: 255}}, image.Point{}, draw.Src)
	caption := image.Rect(0, 0, 640, 360)
	ss := Suggest(Input{Img: img, Text: []image.Rectangle{caption}, Saliency: vision.Saliency(img), Prompt: "budget travel in Japan"})
	if len(ss) < 3 {
		t.Fatalf("%d suggestions", len(ss))
	}
	for _, s := range ss[:3] {
		if s.Placement == "top-left" || s.Placement == "top" || s.Placement == "left" {
			t.Errorf("suggestion over the caption: %+v", s)
		}
	}
	if !strings.Contains(ss[0].Reason, "nothing written there") {
		t.Errorf("reason %q", ss[0].Reason)
	}
}

// A face that fills most of the frame leaves the bands above and below
// it: three suggestions still, none over the face.
func TestSuggestAroundAFaceFillingTheFrame(t *testing.T) {
	img, det := facePhoto(t)
	faces := det.Detect(img)
	if len(faces) == 0 {
		t.Fatal("no face found")
	}
	ss := Suggest(Input{Img: img, Faces: faces, Saliency: vision.Saliency(img), Prompt: `a man shocked by his power bill, headline "BILL SHOCK"`})
	if len(ss) < 3 {
		t.Fatalf("%d suggestions: %+v", len(ss), ss)
	}
	for _, s := range ss {
		for _, f := range faces {
			if f.Rect.Overlaps(s.Box) {
				t.Errorf("%s %v covers the face %v", s.Placement, s.Box, f.Rect)
			}
		}
	}
}

// facePhoto is pigo's sample portrait and a face detector.
func facePhoto(t *testing.T) (image.Image, *vision.Detector) {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	return img, det
}
