package layout

// The wire form of a layout document, the JSON format templates are
// written in (the templates table, seeded by migration). Tagged, unlike
// the domain types: it is the document format template authors write,
// which Parse decodes and validates into Layout, and it never leaves this
// package. Optional
// numbers are pointers so that an absent field takes its default and an
// explicit 0 is kept.
type wireLayout struct {
	Aspect     string            `json:"aspect"`
	Background wireBackground    `json:"background"`
	Texts      []wireText        `json:"texts"`
	Face       *wireFace         `json:"face"`
	Accents    []wireAccent      `json:"accents"`
	Palette    map[string]string `json:"palette"`
	Grade      string            `json:"grade"`
}

type wireBackground struct {
	Kind   string    `json:"kind"`
	Colors []string  `json:"colors"`
	Angle  float64   `json:"angle"`
	Center []float64 `json:"center"`
	Blur   *float64  `json:"blur"`
	Dim    *float64  `json:"dim"`
}

type wireText struct {
	Name        string    `json:"name"`
	Box         []float64 `json:"box"`
	Font        string    `json:"font"`
	Size        float64   `json:"size"`
	Case        string    `json:"case"`
	Align       string    `json:"align"`
	VAlign      string    `json:"valign"`
	Stroke      *float64  `json:"stroke"`
	Shadow      *bool     `json:"shadow"`
	Color       string    `json:"color"`
	StrokeColor string    `json:"strokeColor"`
	Highlight   string    `json:"highlight"`
	Plate       string    `json:"plate"`
	MaxWords    int       `json:"maxWords"`
	MaxLines    int       `json:"maxLines"`
	Text        string    `json:"text"`
	Rotate      float64   `json:"rotate"`
}

type wireFace struct {
	Box          []float64 `json:"box"`
	Shape        string    `json:"shape"`
	Outline      string    `json:"outline"`
	OutlineWidth *float64  `json:"outlineWidth"`
	Shadow       *bool     `json:"shadow"`
	Side         string    `json:"side"`
}

type wireAccent struct {
	Kind      string    `json:"kind"`
	Box       []float64 `json:"box"`
	Color     string    `json:"color"`
	TextColor string    `json:"textColor"`
	Text      string    `json:"text"`
	AutoText  bool      `json:"autoText"`
	WhenAsked bool      `json:"whenAsked"`
	Angle     float64   `json:"angle"`
	AimFace   bool      `json:"aimFace"`
}
