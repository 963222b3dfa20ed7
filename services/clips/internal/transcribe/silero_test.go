package transcribe

import (
	"flag"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

var sileroPath = flag.String("speech.silero", "", "BenchmarkRecognisers: Silero VAD v5 (silero_vad_v5.onnx, e.g. from the npm package @ricky0123/vad-web@0.0.24) to compare with the energy detector")

// Silero VAD v5 reads 512 samples at 16 kHz with the 64 before them
// (its own wrapper's context) and carries a 2×1×128 state; speech starts
// at a probability of 0.5 and ends under 0.35 (the thresholds of
// @ricky0123/vad-web).
const (
	sileroWindow  = 512
	sileroContext = 64
	sileroOn      = 0.5
	sileroOff     = 0.35
)

// sileroSplit returns a segmenter that decides each 32 ms frame with
// Silero VAD and cuts segments as speechSpans does. The ONNX Runtime
// environment must be loaded (the Moonshine model is).
func sileroSplit(b *testing.B, path string) func(w *wavFile) ([]span, error) {
	b.Helper()
	session, err := ort.NewDynamicAdvancedSession(path, []string{"input", "state", "sr"}, []string{"output", "stateN"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = session.Destroy() })
	return func(w *wavFile) ([]span, error) {
		pcm, err := w.pcm(0, w.samples)
		if err != nil {
			return nil, err
		}
		rate := w.rate
		samples := floats(pcm)
		n := len(samples) / sileroWindow
		voiced := make([]bool, n)
		prob := make([]float64, n)
		state := make([]float32, 2*128)
		window := make([]float32, sileroContext+sileroWindow)
		sr, err := ort.NewScalar(int64(rate))
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = sr.Destroy() }()
		speaking := false
		for i := range n {
			copy(window, window[sileroWindow:]) // the last 64 samples become the context
			copy(window[sileroContext:], samples[i*sileroWindow:(i+1)*sileroWindow])
			in, err1 := ort.NewTensor(ort.NewShape(1, int64(len(window))), window)
			st, err2 := ort.NewTensor(ort.NewShape(2, 1, 128), state)
			if err1 != nil || err2 != nil {
				b.Fatal(err1, err2)
			}
			out := []ort.Value{nil, nil}
			if err := session.Run([]ort.Value{in, st, sr}, out); err != nil {
				b.Fatal(err)
			}
			p := float64(out[0].(*ort.Tensor[float32]).GetData()[0])
			copy(state, out[1].(*ort.Tensor[float32]).GetData())
			for _, v := range []ort.Value{in, st, out[0], out[1]} {
				_ = v.Destroy()
			}
			speaking = p >= sileroOn || speaking && p >= sileroOff
			voiced[i], prob[i] = speaking, p
		}
		return segments(voiced, prob, sileroWindow, len(samples), rate), nil
	}
}
