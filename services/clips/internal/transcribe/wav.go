package transcribe

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// chunk is a piece of a WAV file and where it starts in the whole.
type chunk struct {
	path   string
	offset float64 // seconds
}

// cutSearch is how far either side of a chunk's nominal end split looks
// for the quietest cutWindow to cut in.
const (
	cutSearch = 0.2 // of the chunk length
	cutWindow = 0.1 // seconds
)

// split cuts the 16-bit mono PCM WAV at path into chunks of about
// seconds each, cutting at the quietest 0.1 s within ±20 % of every
// nominal end, and writes them into dir. Audio no longer than 1.2 chunks
// is returned whole, as path itself.
func split(path, dir string, seconds float64) ([]chunk, error) {
	rate, pcm, err := readWAV(path)
	if err != nil {
		return nil, err
	}
	per := int(seconds * float64(rate))
	if len(pcm)/2 <= per+int(cutSearch*float64(per)) {
		return []chunk{{path: path}}, nil
	}
	var out []chunk
	for start, n := 0, 0; start < len(pcm)/2; n++ {
		end := len(pcm) / 2
		if end-start > per+int(cutSearch*float64(per)) {
			end = quietest(pcm, start+per-int(cutSearch*float64(per)), start+per+int(cutSearch*float64(per)), int(cutWindow*float64(rate)))
		}
		c := chunk{path: filepath.Join(dir, fmt.Sprintf("chunk-%04d.wav", n)), offset: float64(start) / float64(rate)}
		if err := writeWAV(c.path, rate, pcm[2*start:2*end]); err != nil {
			return nil, err
		}
		out = append(out, c)
		start = end
	}
	return out, nil
}

// quietest returns the middle sample of the window of the given length
// with the least energy between samples from and to.
func quietest(pcm []byte, from, to, window int) int {
	best, at := -1.0, (from+to)/2
	for w := from; w+window <= to; w += window / 2 {
		var e float64
		for i := w; i < w+window; i++ {
			v := float64(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) //nolint:gosec // G115: reinterpreting s16le bits
			e += v * v
		}
		if best < 0 || e < best {
			best, at = e, w+window/2
		}
	}
	return at
}

// readWAV returns the sample rate and the PCM data of a 16-bit mono WAV.
func readWAV(path string) (rate int, pcm []byte, err error) {
	b, err := os.ReadFile(path) //nolint:gosec // G304: the caller's own audio file
	if err != nil {
		return 0, nil, fmt.Errorf("transcribe: reading audio: %w", err)
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, nil, fmt.Errorf("transcribe: %s is not a WAV file", path)
	}
	var format, channels, bits int
	for i := 12; i+8 <= len(b); {
		id, size := string(b[i:i+4]), int(binary.LittleEndian.Uint32(b[i+4:]))
		body := b[i+8 : min(len(b), i+8+size)]
		switch id {
		case "fmt ":
			if len(body) < 16 {
				return 0, nil, fmt.Errorf("transcribe: %s: short fmt chunk", path)
			}
			format, channels = int(binary.LittleEndian.Uint16(body)), int(binary.LittleEndian.Uint16(body[2:]))
			rate, bits = int(binary.LittleEndian.Uint32(body[4:])), int(binary.LittleEndian.Uint16(body[14:]))
		case "data":
			if format != 1 || channels != 1 || bits != 16 || rate <= 0 {
				return 0, nil, fmt.Errorf("transcribe: %s is not 16-bit mono PCM (format %d, %d channels, %d bits)", path, format, channels, bits)
			}
			return rate, body[:len(body)&^1], nil
		}
		i += 8 + size + size%2
	}
	return 0, nil, fmt.Errorf("transcribe: %s has no data chunk", path)
}

// writeWAV writes 16-bit mono PCM as a WAV file.
func writeWAV(path string, rate int, pcm []byte) error {
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(pcm))) //nolint:gosec // G115: chunks are minutes long
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)              // PCM
	binary.LittleEndian.PutUint16(h[22:], 1)              // mono
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))   //nolint:gosec // G115: a sample rate
	binary.LittleEndian.PutUint32(h[28:], uint32(2*rate)) //nolint:gosec // G115: a byte rate
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(len(pcm))) //nolint:gosec // G115: chunks are minutes long
	if err := os.WriteFile(path, append(h, pcm...), 0o600); err != nil {
		return fmt.Errorf("transcribe: writing a chunk: %w", err)
	}
	return nil
}
