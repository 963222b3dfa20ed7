package imaging

// Luma is the Rec. 709 luma of 8-bit components, on 0..255: the weights
// pkg/media/vision's metrics use. The weighted sum is formed in integers and
// divided once, so that rounding it (a table index) gives exactly the
// integer (2126·r + 7152·g + 722·b + 5000) / 10000.
func Luma(r, g, b uint8) float64 {
	return float64(2126*uint32(r)+7152*uint32(g)+722*uint32(b)) / 10000
}

// Clamp01 is v limited to 0..1.
func Clamp01(v float64) float64 { return min(1, max(0, v)) }
