package ffrender

import "encoding/json"

// Tagged wire structs, an exception to untagged domain types: the
// crop-path file is a documented format the product writes beside a
// reframed render (cropPathUrl, for editors), so its keys, in the order
// the file has always had them, live here rather than on CropPoint.
type cropPathFile struct {
	ClipStart    float64         `json:"clipStart"`
	Points       []cropPathPoint `json:"points"`
	SourceHeight int             `json:"sourceHeight"`
	SourceWidth  int             `json:"sourceWidth"`
}

// With autoZoom a point also has its zoom and the zoomed window's top
// (y); the window is then the full-height 9:16 window divided by zoom,
// its top-left corner at x, y. Without, both are left out.
type cropPathPoint struct {
	T    float64 `json:"t"`
	X    int     `json:"x"`
	Face bool    `json:"face"`
	Y    int     `json:"y,omitempty"`
	Zoom float64 `json:"zoom,omitempty"`
	// Halves are the split layout's top and bottom windows, only where
	// the frame is split.
	Halves []cropPathWindow `json:"halves,omitempty"`
}

type cropPathWindow struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// EncodeCropPath is the crop-path file of a clip starting clipStart
// seconds into a srcW×srcH source, cropped along points.
func EncodeCropPath(srcW, srcH int, clipStart float64, points []CropPoint) ([]byte, error) {
	f := cropPathFile{ClipStart: clipStart, SourceHeight: srcH, SourceWidth: srcW, Points: make([]cropPathPoint, len(points))}
	for i, p := range points {
		f.Points[i] = cropPathPoint{T: p.T, X: p.X, Face: p.Face, Y: p.Y, Zoom: p.Zoom}
		for _, w := range p.Halves {
			f.Points[i].Halves = append(f.Points[i].Halves, cropPathWindow(w))
		}
	}
	return json.Marshal(f)
}
