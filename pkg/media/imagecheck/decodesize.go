package imagecheck

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
)

// pngDecodeBytes estimates image/png's allocation for a file whose
// DecodeConfig returned cfg: the output image at its sample size (the
// decoder keeps 16-bit samples), twice that when interlaced (each Adam7
// pass is decoded into an image of its own, then merged).
func pngDecodeBytes(data []byte, cfg image.Config) int64 {
	bpp := int64(8)
	if _, ok := cfg.ColorModel.(color.Palette); ok {
		bpp = 1
	} else {
		switch cfg.ColorModel {
		case color.GrayModel:
			bpp = 1
		case color.Gray16Model:
			bpp = 2
		case color.RGBAModel, color.NRGBAModel:
			bpp = 4
		}
	}
	n := int64(cfg.Width) * int64(cfg.Height) * bpp
	// The interlace method is the last byte of IHDR, which DecodeConfig has
	// just read as the first chunk: signature 8, length 4, type 4, then 12
	// bytes of fields before it.
	const interlaceOffset = 8 + 4 + 4 + 12
	if len(data) > interlaceOffset && data[interlaceOffset] != 0 {
		n *= 2
	}
	return n
}

// jpegDecodeBytes estimates image/jpeg's allocation from the frame header:
// every component at its own resolution padded to whole MCUs (1 byte a
// sample), an extra 4 bytes a pixel for the CMYK conversion of 4-component
// files, and for a progressive file the coefficients of every block
// (64 int32 per 8×8 block, 4 bytes a sample) kept until the last scan.
func jpegDecodeBytes(data []byte, cfg image.Config) (int64, error) {
	sof, progressive, err := jpegFrame(data)
	if err != nil {
		return 0, err
	}
	// sof: precision(1) height(2) width(2) count(1), then per component
	// id(1) sampling(1) table(1); jpegFrame checked the length.
	n := int(sof[5])
	hmax, vmax := 1, 1
	for i := range n {
		s := sof[6+3*i+1]
		hmax, vmax = max(hmax, int(s>>4)), max(vmax, int(s&0x0f))
	}
	mxx := int64((cfg.Width + 8*hmax - 1) / (8 * hmax))
	myy := int64((cfg.Height + 8*vmax - 1) / (8 * vmax))
	var samples int64
	for i := range n {
		s := sof[6+3*i+1]
		samples += mxx * int64(s>>4) * 8 * myy * int64(s&0x0f) * 8
	}
	total := samples
	if n == 4 {
		total += 4 * int64(cfg.Width) * int64(cfg.Height)
	}
	if progressive {
		total += 4 * samples
	}
	return total, nil
}

// jpegFrame walks the marker segments the way image/jpeg does (stray
// bytes and "\xff\x00" skipped, fill bytes allowed) to the first
// start-of-frame and returns its payload and whether it is progressive.
func jpegFrame(data []byte) (sof []byte, progressive bool, err error) {
	bad := func(why string) ([]byte, bool, error) {
		return nil, false, fmt.Errorf("%w: %s", ErrUndecodable, why)
	}
	i := 2 // after SOI
	for {
		for i+1 < len(data) && data[i] != 0xFF {
			i++
		}
		for i+1 < len(data) && data[i+1] == 0xFF {
			i++
		}
		if i+1 >= len(data) {
			return bad("no frame header")
		}
		marker := data[i+1]
		i += 2
		switch {
		case marker == 0x00, marker >= 0xD0 && marker <= 0xD7: // no payload
			continue
		case marker == 0xD9 || marker == 0xDA: // end or scan before any frame
			return bad("no frame header")
		}
		if i+2 > len(data) {
			return bad("truncated segment")
		}
		size := int(binary.BigEndian.Uint16(data[i:]))
		if size < 2 || i+size > len(data) {
			return bad("truncated segment")
		}
		payload := data[i+2 : i+size]
		i += size
		if marker == 0xC0 || marker == 0xC1 || marker == 0xC2 { // the frames image/jpeg decodes
			if len(payload) < 6 || len(payload) < 6+3*int(payload[5]) {
				return bad("short frame header")
			}
			return payload, marker == 0xC2, nil
		}
	}
}
