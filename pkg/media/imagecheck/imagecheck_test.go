package imagecheck

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func tinyImage() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for y := range 3 {
		for x := range 4 {
			img.SetRGBA(x, y, color.RGBA{uint8(60 * x), uint8(80 * y), 200, 255})
		}
	}
	return img
}

func tinyPNG(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, tinyImage()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tinyJPEG(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, tinyImage(), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngHeaderOnly builds a PNG whose IHDR (with a valid CRC, so the decoder
// believes it) declares w×h 16-bit RGBA, followed by a tiny bogus IDAT: a
// decompression-bomb shape, a few dozen bytes claiming a huge image.
func pngHeaderOnly(w, h uint32) []byte { return pngHeader(w, h, 16, 6, 0) }

// pngHeader is pngHeaderOnly with the bit depth, colour type and interlace
// method chosen.
func pngHeader(w, h uint32, depth, colorType, interlace byte) []byte {
	var buf bytes.Buffer
	buf.Write(pngMagic)
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&buf, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		buf.WriteString(typ)
		crc.Write([]byte(typ))
		buf.Write(data)
		crc.Write(data)
		_ = binary.Write(&buf, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9], ihdr[12] = depth, colorType, interlace
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00})
	chunk("IEND", nil)
	return buf.Bytes()
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		head   []byte
		format string
		ok     bool
	}{
		{"png", tinyPNG(t), FormatPNG, true},
		{"jpeg", tinyJPEG(t), FormatJPEG, true},
		{"jpeg-magic-only", []byte{0xFF, 0xD8, 0xFF}, FormatJPEG, true},
		{"png-magic-only", pngMagic, FormatPNG, true},
		{"short-png", pngMagic[:7], "", false},
		{"short-jpeg", []byte{0xFF, 0xD8}, "", false},
		{"empty", nil, "", false},
		{"gif", []byte("GIF89a......"), "", false},
		{"webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "", false},
		{"text", []byte("hello, world"), "", false},
	} {
		format, ok := Sniff(tc.head)
		if format != tc.format || ok != tc.ok {
			t.Errorf("%s: Sniff = %q, %v; want %q, %v", tc.name, format, ok, tc.format, tc.ok)
		}
	}
}

func TestVerifyValid(t *testing.T) {
	for name, tc := range map[string]struct {
		data   []byte
		format string
	}{
		"png":  {tinyPNG(t), FormatPNG},
		"jpeg": {tinyJPEG(t), FormatJPEG},
	} {
		img, format, err := Verify(tc.data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if format != tc.format || img.Bounds() != image.Rect(0, 0, 4, 3) {
			t.Errorf("%s: format %q bounds %v", name, format, img.Bounds())
		}
		if ContentType(format) != "image/"+tc.format {
			t.Errorf("%s: content type %q", name, ContentType(format))
		}
	}
}

func TestVerifyErrors(t *testing.T) {
	validPNG := tinyPNG(t)
	validJPEG := tinyJPEG(t)

	// Padding a valid PNG past the limit: refused on size alone.
	huge := append(bytes.Clone(validPNG), make([]byte, MaxBytes)...)
	// A PNG whose pixel data was damaged after a valid header.
	corruptPNG := bytes.Clone(validPNG)
	for i := len(corruptPNG) - 30; i < len(corruptPNG)-12; i++ {
		corruptPNG[i] ^= 0x55
	}

	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrEmpty},
		{"too-large", huge, ErrTooLarge},
		{"text", []byte("just some text, not an image\n"), ErrNotImage},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), ErrNotImage},
		{"png-magic-only", pngMagic, ErrUndecodable},
		{"jpeg-magic-only", []byte{0xFF, 0xD8, 0xFF}, ErrUndecodable},
		{"truncated-png", validPNG[:len(validPNG)/2], ErrUndecodable},
		{"truncated-jpeg", validJPEG[:len(validJPEG)/2], ErrUndecodable},
		{"corrupt-png-data", corruptPNG, ErrUndecodable},
		{"bomb-pixels", pngHeaderOnly(8000, 8000), ErrDimensions},
		{"bomb-side", pngHeaderOnly(20_000, 1), ErrDimensions},
		{"too-tall", pngHeaderOnly(1, MaxSide+1), ErrDimensions},
		{"strip-tall", pngHeaderOnly(1, 10_000), ErrAspectRatio},
		{"strip-wide", pngHeaderOnly(10_000, 1), ErrAspectRatio},
		{"just-past-20-to-1", pngHeaderOnly(2001, 100), ErrAspectRatio},
		{"bomb-16-bit", pngHeaderOnly(6324, 6324), ErrDecodeMemory},
		{"bomb-interlaced", pngHeader(5000, 5000, 8, 6, 1), ErrDecodeMemory},
		{"bomb-progressive-jpeg", jpegFrameAs(t, 0xC2, 7000, 5000), ErrDecodeMemory},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, format, err := Verify(tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if img != nil || format != "" {
				t.Errorf("got image %v format %q alongside error", img != nil, format)
			}
		})
	}
}

// A banner of exactly 20:1, either way round, is a picture like any
// other.
func TestAspectRatioLimitIsInclusive(t *testing.T) {
	for _, r := range []image.Rectangle{image.Rect(0, 0, 2000, 100), image.Rect(0, 0, 100, 2000)} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, image.NewGray(r)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Verify(buf.Bytes()); err != nil {
			t.Errorf("%dx%d: %v", r.Dx(), r.Dy(), err)
		}
	}
}

// TestVerifyTextNamedPNG covers the upload a client mislabels: a text file
// named .png (and typically sent as image/png) is still refused, because
// only the bytes are trusted.
func TestVerifyTextNamedPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "photo.png")
	if err := os.WriteFile(path, []byte("This is not a picture.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Verify(data); !errors.Is(err, ErrNotImage) {
		t.Fatalf("err = %v, want ErrNotImage", err)
	}
	if _, err := CheckHead(int64(len(data)), data); !errors.Is(err, ErrNotImage) {
		t.Fatalf("CheckHead err = %v, want ErrNotImage", err)
	}
}

func TestCheckHead(t *testing.T) {
	head := tinyPNG(t)[:SniffLen]
	for _, tc := range []struct {
		size int64
		head []byte
		want error
	}{
		{0, head, ErrEmpty},
		{-1, head, ErrEmpty},
		{MaxBytes + 1, head, ErrTooLarge},
		{100, []byte("<html>"), ErrNotImage},
		{MaxBytes, head, nil},
	} {
		format, err := CheckHead(tc.size, tc.head)
		if !errors.Is(err, tc.want) {
			t.Errorf("CheckHead(%d, %q) err = %v, want %v", tc.size, tc.head, err, tc.want)
		}
		if err == nil && format != FormatPNG {
			t.Errorf("format %q", format)
		}
	}
}

func FuzzVerify(f *testing.F) {
	validPNG := tinyPNG(f)
	f.Add(validPNG)
	f.Add(tinyJPEG(f))
	f.Add([]byte("plain text, not an image"))
	f.Add(validPNG[:len(validPNG)-20])
	f.Add(pngHeaderOnly(8000, 8000))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE0})
	f.Add(jpegFrameAs(f, 0xC2, 7000, 5000))
	sentinels := []error{ErrEmpty, ErrTooLarge, ErrNotImage, ErrUndecodable, ErrDimensions, ErrAspectRatio, ErrDecodeMemory}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, format, err := Verify(data)
		if err != nil {
			n := 0
			for _, s := range sentinels {
				if errors.Is(err, s) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("error %q wraps %d sentinels, want exactly 1", err, n)
			}
			if img != nil || format != "" {
				t.Fatal("image or format returned with an error")
			}
			return
		}
		sniffed, ok := Sniff(data)
		if !ok || sniffed != format {
			t.Fatalf("accepted %q but Sniff says %q, %v", format, sniffed, ok)
		}
		b := img.Bounds()
		if b.Dx() < 1 || b.Dy() < 1 || b.Dx() > MaxSide || b.Dy() > MaxSide || b.Dx()*b.Dy() > MaxPixels ||
			max(b.Dx(), b.Dy()) > MaxAspect*min(b.Dx(), b.Dy()) {
			t.Fatalf("accepted image with bounds %v", b)
		}
		if len(data) > MaxBytes {
			t.Fatalf("accepted %d bytes", len(data))
		}
	})
}

// jpegFrameAs is tinyJPEG (64×48, 4:2:0) with its frame marker replaced by
// marker (0xC2 makes it progressive) and its dimensions by w×h: the header
// a decoder budgets from, whatever the scans hold.
func jpegFrameAs(t testing.TB, marker byte, w, h uint16) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	i := bytes.Index(data, []byte{0xFF, 0xC0})
	if i < 0 {
		t.Fatal("no SOF0 in an encoded JPEG")
	}
	data[i+1] = marker
	binary.BigEndian.PutUint16(data[i+5:], h)
	binary.BigEndian.PutUint16(data[i+7:], w)
	return data
}

// TestReadHeaderDecodeBytes checks the memory estimate against what the
// standard decoders allocate for each layout.
func TestReadHeaderDecodeBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want int64
	}{
		{"png-rgba-8", tinyPNG(t), 4 * 3 * 4},
		{"png-rgba-16", pngHeader(100, 10, 16, 6, 0), 100 * 10 * 8},
		{"png-gray-8", pngHeader(100, 10, 8, 0, 0), 100 * 10},
		{"png-gray-16", pngHeader(100, 10, 16, 0, 0), 100 * 10 * 2},
		{"png-rgb-8-interlaced", pngHeader(100, 10, 8, 2, 1), 2 * 100 * 10 * 4},
		// 4:2:0 in 16×16 MCUs: luma 64×48, each chroma plane 32×24.
		{"jpeg-baseline", jpegFrameAs(t, 0xC0, 64, 48), 64*48 + 2*32*24},
		{"jpeg-progressive", jpegFrameAs(t, 0xC2, 64, 48), 5 * (64*48 + 2*32*24)},
		{"jpeg-padded", jpegFrameAs(t, 0xC0, 65, 49), 80*64 + 2*40*32},
		// The largest accepted 8-bit RGBA canvas is exactly the limit.
		{"png-rgba-8-max", pngHeader(8000, 5000, 8, 6, 0), MaxDecodeBytes},
	} {
		h, err := ReadHeader(tc.data)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if h.DecodeBytes != tc.want {
			t.Errorf("%s: DecodeBytes = %d, want %d", tc.name, h.DecodeBytes, tc.want)
		}
	}
}

// TestDecodeBytesBoundsRealAllocation decodes real images and checks the
// heap actually grew by no more than the estimate (plus small buffers).
func TestDecodeBytesBoundsRealAllocation(t *testing.T) {
	big := image.NewNRGBA64(image.Rect(0, 0, 800, 600))
	for i := range big.Pix {
		big.Pix[i] = byte(i * 7)
	}
	var p16, pjpeg bytes.Buffer
	if err := png.Encode(&p16, big); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&pjpeg, big, nil); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"png-16": p16.Bytes(), "jpeg": pjpeg.Bytes()} {
		h, err := ReadHeader(data)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.Benchmark(func(b *testing.B) {
			for range b.N {
				if _, err := Decode(data, h); err != nil {
					b.Fatal(err)
				}
			}
		}).AllocedBytesPerOp()
		if allocs < h.DecodeBytes/2 || allocs > h.DecodeBytes+1<<20 {
			t.Errorf("%s: decoding allocates %d bytes, estimate %d", name, allocs, h.DecodeBytes)
		}
	}
}
