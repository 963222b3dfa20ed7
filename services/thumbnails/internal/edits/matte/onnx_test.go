package matte

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// onnxLibraryEnv names the ONNX Runtime shared library for the tests.
// Without it they look in the tools cache, where
//
//	npm pack onnxruntime-node@1.24.1
//
// puts it once extracted (package/bin/napi-v6/linux/x64/libonnxruntime.so.1):
// version 1.24 is the C API onnxruntime_go v1.27.0 is built for.
const onnxLibraryEnv = "HOOKLINE_ONNXRUNTIME_LIB"

// onnxLibrary returns the shared library's path, or skips the test (the
// only reason these tests skip) saying why.
func onnxLibrary(t *testing.T) string {
	t.Helper()
	path := os.Getenv(onnxLibraryEnv)
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(home, ".cache", "hookline", "onnxruntime-1.24.1", "libonnxruntime.so.1")
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("ONNX Runtime shared library not available (%v): set %s or extract onnxruntime-node@1.24.1's libonnxruntime.so.1 there", err, onnxLibraryEnv)
	}
	return path
}

// Protocol buffer encoding, enough to write an ONNX model by hand (field
// numbers from onnx.proto).
func pbVarint(v uint64) []byte {
	var out []byte
	for v >= 0x80 {
		out = append(out, byte(v)|0x80)
		v >>= 7
	}
	return append(out, byte(v))
}

func pbInt(field int, v int64) []byte {
	return append(pbVarint(uint64(field)<<3), pbVarint(uint64(v))...) //nolint:gosec // G115: non-negative here
}

func pbBytes(field int, data ...[]byte) []byte {
	var body []byte
	for _, d := range data {
		body = append(body, d...)
	}
	out := append(pbVarint(uint64(field)<<3|2), pbVarint(uint64(len(body)))...) //nolint:gosec // G115: small
	return append(out, body...)
}

func pbString(field int, s string) []byte { return pbBytes(field, []byte(s)) }

// tensorInfo is a ValueInfoProto for a float tensor; a dimension is an
// int64 size or a string parameter (dynamic).
func tensorInfo(name string, dims ...any) []byte {
	var shape [][]byte
	for _, d := range dims {
		switch d := d.(type) {
		case int:
			shape = append(shape, pbBytes(1, pbInt(1, int64(d))))
		case string:
			shape = append(shape, pbBytes(1, pbString(2, d)))
		}
	}
	tensor := append(pbInt(1, 1 /* FLOAT */), pbBytes(2, shape...)...)
	return append(pbString(1, name), pbBytes(2, pbBytes(1, tensor))...)
}

// meanModel is an ONNX model (opset 13) that averages the input's three
// channels and, with sigmoid, squashes the mean into 0..1: a "matting
// model" whose matte is known for any input.
func meanModel(h, w any, sigmoid bool) []byte {
	reduce := pbBytes(1,
		pbString(1, "input"), pbString(2, "mean"), pbString(4, "ReduceMean"),
		pbBytes(5, pbString(1, "axes"), pbInt(8, 1), pbInt(20, 7 /* INTS */)),
		pbBytes(5, pbString(1, "keepdims"), pbInt(3, 1), pbInt(20, 2 /* INT */)),
	)
	nodes := [][]byte{reduce}
	out := "mean"
	if sigmoid {
		nodes = append(nodes, pbBytes(1, pbString(1, "mean"), pbString(2, "matte"), pbString(4, "Sigmoid")))
		out = "matte"
	}
	graph := append([][]byte{}, nodes...)
	graph = append(graph,
		pbString(2, "mean-matte"),
		pbBytes(11, tensorInfo("input", 1, 3, h, w)),
		pbBytes(12, tensorInfo(out, 1, 1, h, w)),
	)
	model := pbInt(1, 7) // IR version 7
	model = append(model, pbString(2, "hookline-test")...)
	model = append(model, pbBytes(7, graph...)...)
	return append(model, pbBytes(8, pbString(1, ""), pbInt(2, 13))...)
}

func writeModel(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestONNX runs the hand-made model through the remover: for each half
// of a two-tone picture the alpha must be the model's output for that
// colour, computed here from the normalisation, whatever the model's input
// size (fixed or dynamic) and whether it outputs probabilities or logits.
func TestONNX(t *testing.T) {
	lib := onnxLibrary(t)
	const w, h = 300, 200
	light, dark := color.RGBA{230, 220, 200, 255}, color.RGBA{20, 40, 30, 255}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if x < w/2 {
				img.SetRGBA(x, y, light)
			} else {
				img.SetRGBA(x, y, dark)
			}
		}
	}
	for name, model := range map[string][]byte{
		"fixed 64×64, sigmoid":  meanModel(64, 64, true),
		"dynamic size, sigmoid": meanModel("h", "w", true),
		"dynamic size, logits":  meanModel("h", "w", false),
	} {
		t.Run(name, func(t *testing.T) {
			o, err := NewONNX(writeModel(t, model), lib)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := o.Close(); err != nil {
					t.Error(err)
				}
			}()
			expect := func(c color.RGBA) uint8 {
				v := [3]float32{float32(c.R) / 255, float32(c.G) / 255, float32(c.B) / 255}
				m := 0.0
				for k := range 3 {
					m += float64((v[k] - o.Mean[k]) / o.Std[k])
				}
				return uint8(255/(1+math.Exp(-m/3)) + 0.5)
			}
			cut, err := o.Remove(t.Context(), img, nil)
			if err != nil {
				t.Fatal(err)
			}
			if cut.Rect != img.Rect {
				t.Fatalf("cut-out bounds %v", cut.Rect)
			}
			for _, probe := range []struct {
				x int
				c color.RGBA
			}{{w / 8, light}, {w * 3 / 8, light}, {w * 5 / 8, dark}, {w * 7 / 8, dark}} {
				got, want := cut.NRGBAAt(probe.x, h/2).A, expect(probe.c)
				if d := int(got) - int(want); d < -2 || d > 2 {
					t.Errorf("alpha at x=%d is %d, model says %d", probe.x, got, want)
				}
			}
		})
	}
}

func TestONNXRefusesModels(t *testing.T) {
	lib := onnxLibrary(t)
	greyIn := pbInt(1, 7)
	greyIn = append(greyIn, pbBytes(7,
		pbBytes(1, pbString(1, "input"), pbString(2, "output"), pbString(4, "Sigmoid")),
		pbString(2, "grey"),
		pbBytes(11, tensorInfo("input", 1, 1, 32, 32)),
		pbBytes(12, tensorInfo("output", 1, 1, 32, 32)),
	)...)
	greyIn = append(greyIn, pbBytes(8, pbString(1, ""), pbInt(2, 13))...)
	if _, err := NewONNX(writeModel(t, greyIn), lib); !errors.Is(err, ErrModel) {
		t.Errorf("one-channel model: err = %v, want ErrModel", err)
	}
	if _, err := NewONNX(writeModel(t, []byte("not a model")), lib); err == nil {
		t.Error("garbage model accepted")
	}
	// The runtime stays usable after refusals.
	o, err := NewONNX(writeModel(t, meanModel(16, 16, true)), lib)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestONNXCancelled(t *testing.T) {
	lib := onnxLibrary(t)
	o, err := NewONNX(writeModel(t, meanModel("h", "w", true)), lib)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = o.Close() }()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := o.Remove(ctx, image.NewRGBA(image.Rect(0, 0, 64, 64)), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestONNXMissingLibrary needs no library: a wrong path is an error, not
// a crash.
func TestONNXMissingLibrary(t *testing.T) {
	_, err := NewONNX(filepath.Join(t.TempDir(), "model.onnx"), filepath.Join(t.TempDir(), "libonnxruntime.so"))
	if err == nil {
		t.Fatal("NewONNX succeeded without a library")
	}
}
