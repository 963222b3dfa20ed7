package matte

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"

	ort "github.com/yalue/onnxruntime_go"

	"hookline.dev/pkg/media/onnxrt"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/thumbnails/internal/edits/plane"
)

// ONNX is a remover that runs a user-supplied matting model (U²-Net,
// IS-Net, BiRefNet, MODNet, RMBG and the like) with ONNX Runtime, loaded
// from its shared library at run time. The model takes one image as a
// float tensor N×3×H×W (RGB) and gives the subject's matte as its first
// output, N×1×H×W or H×W, either as probabilities or as logits (told apart
// by their range). A model with a fixed input size gets the picture
// stretched to it, as such models are trained; a model with dynamic sizes
// gets it at dynamicSide on its longer side. The matte is scaled back to
// the picture's size and its edges decontaminated as the classical
// remover's are. An ONNX may be shared by goroutines; Close releases it.
type ONNX struct {
	session       *ort.DynamicAdvancedSession
	input, output string
	fixedW        int // model input size, 0 when dynamic
	fixedH        int
	// Mean and Std normalise each 0..1 channel as (v − Mean)/Std before
	// the model sees it. NewONNX sets ImageNet's statistics, which the
	// rembg family (U²-Net, IS-Net) and BiRefNet expect; MODNet expects
	// 0.5 and 0.5, RMBG 0.5 and 1. Set them before the first Remove.
	Mean, Std [3]float32
}

var _ Remover = (*ONNX)(nil)

// dynamicSide is the longer side given to models with dynamic input
// sizes: about what such models are trained at, and a multiple of 32, the
// stride of their encoders.
const dynamicSide = 512

// ErrModel is returned by NewONNX for a model whose inputs or outputs are
// not those of an image matting model.
var ErrModel = errors.New("matte: not an image matting model")

// NewONNX loads ONNX Runtime from libraryPath (libonnxruntime.so from
// the onnxruntime-node npm package, of the version onnxruntime_go
// expects) and the matting model at modelPath. It fails when the library
// cannot be loaded (or another one was loaded before), when the model
// cannot be read, and with ErrModel when its inputs and outputs do not
// fit.
func NewONNX(modelPath, libraryPath string) (*ONNX, error) {
	if err := onnxrt.Acquire(libraryPath); err != nil {
		return nil, fmt.Errorf("matte: %w", err)
	}
	o, err := openModel(modelPath)
	if err != nil {
		onnxrt.Release()
		return nil, err
	}
	return o, nil
}

func openModel(path string) (*ONNX, error) {
	inputs, outputs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return nil, fmt.Errorf("matte: read model %s: %w", path, err)
	}
	if len(inputs) != 1 || len(outputs) == 0 {
		return nil, fmt.Errorf("%w: %d inputs and %d outputs, want 1 image in and a matte out", ErrModel, len(inputs), len(outputs))
	}
	in, out := inputs[0], outputs[0]
	d := in.Dimensions
	if in.OrtValueType != ort.ONNXTypeTensor || in.DataType != ort.TensorElementDataTypeFloat ||
		len(d) != 4 || d[1] != 3 && d[1] != -1 {
		return nil, fmt.Errorf("%w: input %q is %v %v, want float N×3×H×W", ErrModel, in.Name, in.DataType, d)
	}
	if out.OrtValueType != ort.ONNXTypeTensor || out.DataType != ort.TensorElementDataTypeFloat {
		return nil, fmt.Errorf("%w: output %q is %v, want a float tensor", ErrModel, out.Name, out.DataType)
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("matte: session options: %w", err)
	}
	defer func() { _ = opts.Destroy() }()
	// Parallelism comes from concurrent edits, as with libvips.
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("matte: session options: %w", err)
	}
	session, err := ort.NewDynamicAdvancedSession(path, []string{in.Name}, []string{out.Name}, opts)
	if err != nil {
		return nil, fmt.Errorf("matte: load model %s: %w", path, err)
	}
	o := &ONNX{
		session: session, input: in.Name, output: out.Name,
		Mean: [3]float32{0.485, 0.456, 0.406},
		Std:  [3]float32{0.229, 0.224, 0.225},
	}
	if d[2] > 0 && d[3] > 0 {
		o.fixedW, o.fixedH = int(d[3]), int(d[2])
	}
	return o, nil
}

// Name implements Remover.
func (*ONNX) Name() string { return "onnx" }

// Close releases the model, and the runtime when no other ONNX uses it.
func (o *ONNX) Close() error {
	err := o.session.Destroy()
	onnxrt.Release()
	if err != nil {
		return fmt.Errorf("matte: close model: %w", err)
	}
	return nil
}

// Remove implements Remover; faces are not used, the model finds the
// subject itself. It returns ctx's error when cancelled (the run is
// stopped) and the runtime's when the model fails.
func (o *ONNX) Remove(ctx context.Context, img image.Image, _ []vision.Face) (*image.NRGBA, error) {
	full := vision.RGBA8(img, 0)
	fw, fh := full.Rect.Dx(), full.Rect.Dy()
	if fw == 0 || fh == 0 {
		return image.NewNRGBA(full.Rect), nil
	}
	mw, mh := o.fixedW, o.fixedH
	if mw == 0 {
		k := float64(dynamicSide) / float64(max(fw, fh))
		mw = max(32, int(math.Round(float64(fw)*k/32))*32)
		mh = max(32, int(math.Round(float64(fh)*k/32))*32)
	}
	data := o.tensorData(full, mw, mh)
	input, err := ort.NewTensor(ort.NewShape(1, 3, int64(mh), int64(mw)), data)
	if err != nil {
		return nil, fmt.Errorf("matte: input tensor: %w", err)
	}
	defer func() { _ = input.Destroy() }()
	run, err := ort.NewRunOptions()
	if err != nil {
		return nil, fmt.Errorf("matte: run options: %w", err)
	}
	defer func() { _ = run.Destroy() }()
	// A cancelled request stops the run; the run options must outlive the
	// callback, so a started one is waited for.
	terminated := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(terminated)
		_ = run.Terminate()
	})
	outputs := []ort.Value{nil}
	err = o.session.RunWithOptions([]ort.Value{input}, outputs, run)
	if !stop() {
		<-terminated
	}
	if outputs[0] != nil {
		defer func() { _ = outputs[0].Destroy() }()
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("matte: run model: %w", err)
	}
	matte, err := matteFromOutput(outputs[0])
	if err != nil {
		return nil, err
	}
	alpha := plane.Resize(matte, fw, fh)
	for i, v := range alpha.V {
		alpha.V[i] = min(max(v, 0), 1)
	}
	return unmix(full, alpha, max(2, 3*fw/matte.W), nil), nil
}

// tensorData is the picture stretched to w×h, normalised, in N×3×H×W
// order: shrunk by area to about twice that first, so that the final
// bilinear step does not alias.
func (o *ONNX) tensorData(full *image.RGBA, w, h int) []float32 {
	src := vision.RGBA8(full, 2*max(w, h))
	planes := plane.Channels(src)
	data := make([]float32, 3*w*h)
	for c := range 3 {
		p := plane.Resize(planes[c], w, h)
		dst := data[c*w*h : (c+1)*w*h]
		for i, v := range p.V {
			dst[i] = (v - o.Mean[c]) / o.Std[c]
		}
	}
	return data
}

// matteFromOutput reads the model's first output as an image: its last
// two dimensions are the matte's height and width, and the first such
// slice is the matte. Logits (values well outside 0..1) go through the
// logistic function.
func matteFromOutput(v ort.Value) (plane.Plane, error) {
	t, ok := v.(*ort.Tensor[float32])
	if !ok {
		return plane.Plane{}, fmt.Errorf("%w: output is %T, want a float tensor", ErrModel, v)
	}
	shape := t.GetShape()
	if len(shape) < 2 || shape[len(shape)-1] <= 0 || shape[len(shape)-2] <= 0 {
		return plane.Plane{}, fmt.Errorf("%w: output shape %v", ErrModel, shape)
	}
	w, h := int(shape[len(shape)-1]), int(shape[len(shape)-2])
	values := t.GetData()
	if len(values) < w*h {
		return plane.Plane{}, fmt.Errorf("%w: output shape %v with %d values", ErrModel, shape, len(values))
	}
	p := plane.New(w, h)
	copy(p.V, values[:w*h])
	logits := false
	for _, x := range p.V {
		if x < -0.01 || x > 1.01 {
			logits = true
			break
		}
	}
	if logits {
		for i, x := range p.V {
			p.V[i] = float32(1 / (1 + math.Exp(-float64(x))))
		}
	}
	return p, nil
}
