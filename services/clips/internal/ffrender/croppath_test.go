package ffrender

import "testing"

// TestEncodeCropPath: the file keeps the keys (and their order) editors
// have read since the first reframed render.
func TestEncodeCropPath(t *testing.T) {
	b, err := EncodeCropPath(1920, 1080, 12.5, []CropPoint{{T: 0, X: 640, Face: true}, {T: 0.25, X: 652}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"clipStart":12.5,"points":[{"t":0,"x":640,"face":true},{"t":0.25,"x":652,"face":false}],"sourceHeight":1080,"sourceWidth":1920}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
