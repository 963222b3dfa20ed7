package thumbnail

// Aspect is an output aspect ratio as the API spells it. The domain owns
// it: requests, records, templates and every engine speak of it.
type Aspect string

// The aspect ratios the API accepts.
const (
	Landscape Aspect = "16:9"
	Portrait  Aspect = "9:16"
)

// Valid reports whether a is one of the accepted aspect ratios.
func (a Aspect) Valid() bool { return a == Landscape || a == Portrait }

// Size is the pixel size of a thumbnail of aspect a: 1280×720 or 720×1280.
func (a Aspect) Size() (width, height int) {
	if a == Portrait {
		return 720, 1280
	}
	return 1280, 720
}
