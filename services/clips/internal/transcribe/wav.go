package transcribe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
// is returned whole, as path itself. It holds one chunk's samples at a
// time, whatever the length of the file.
func split(path, dir string, seconds float64) ([]chunk, error) {
	w, err := openWAV(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = w.Close() }()
	per := int(seconds * float64(w.rate))
	reach := int(cutSearch * float64(per))
	if w.samples <= per+reach {
		return []chunk{{path: path}}, nil
	}
	var out []chunk
	for start, n := 0, 0; start < w.samples; n++ {
		end := w.samples
		if end-start > per+reach {
			search, err := w.pcm(start+per-reach, start+per+reach)
			if err != nil {
				return nil, err
			}
			end = start + per - reach + quietest(search, 0, 2*reach, int(cutWindow*float64(w.rate)))
		}
		pcm, err := w.pcm(start, end)
		if err != nil {
			return nil, err
		}
		c := chunk{path: filepath.Join(dir, fmt.Sprintf("chunk-%04d.wav", n)), offset: float64(start) / float64(w.rate)}
		if err := writeWAV(c.path, w.rate, pcm); err != nil {
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

// wavFile is an open 16-bit mono PCM WAV whose samples are read where
// they lie, a stretch at a time: an hour of 16 kHz audio is 115 MB that
// no reader holds at once.
type wavFile struct {
	f       *os.File
	rate    int
	data    int64 // the file offset of the first sample
	samples int
}

// openWAV opens the 16-bit mono PCM WAV at path and reads its header. A
// data chunk that claims more than the file holds (a writer that never
// went back to fill in the size) ends with the file.
func openWAV(path string) (*wavFile, error) {
	f, err := os.Open(path) //nolint:gosec // G304: the caller's own audio file
	if err != nil {
		return nil, fmt.Errorf("transcribe: reading audio: %w", err)
	}
	w, err := readHeader(f, path)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return w, nil
}

func readHeader(f *os.File, path string) (*wavFile, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("transcribe: reading audio: %w", err)
	}
	head := make([]byte, 12)
	if _, err := io.ReadFull(f, head); err != nil || string(head[:4]) != "RIFF" || string(head[8:12]) != "WAVE" {
		return nil, fmt.Errorf("transcribe: %s is not a WAV file", path)
	}
	var format, channels, bits, rate int
	for at := int64(12); at+8 <= st.Size(); {
		h := make([]byte, 8)
		if _, err := f.ReadAt(h, at); err != nil {
			return nil, fmt.Errorf("transcribe: reading %s: %w", path, err)
		}
		id, size := string(h[:4]), int64(binary.LittleEndian.Uint32(h[4:]))
		body := at + 8
		switch id {
		case "fmt ":
			b := make([]byte, 16)
			if size < 16 {
				return nil, fmt.Errorf("transcribe: %s: short fmt chunk", path)
			}
			if _, err := f.ReadAt(b, body); err != nil {
				return nil, fmt.Errorf("transcribe: reading %s: %w", path, err)
			}
			format, channels = int(binary.LittleEndian.Uint16(b)), int(binary.LittleEndian.Uint16(b[2:]))
			rate, bits = int(binary.LittleEndian.Uint32(b[4:])), int(binary.LittleEndian.Uint16(b[14:]))
		case "data":
			if format != 1 || channels != 1 || bits != 16 || rate <= 0 {
				return nil, fmt.Errorf("transcribe: %s is not 16-bit mono PCM (format %d, %d channels, %d bits)", path, format, channels, bits)
			}
			size = min(size, st.Size()-body)
			return &wavFile{f: f, rate: rate, data: body, samples: int(size / 2)}, nil
		}
		at = body + size + size%2
	}
	return nil, fmt.Errorf("transcribe: %s has no data chunk", path)
}

// pcm reads the samples from..to (end excluded) as 16-bit PCM bytes.
func (w *wavFile) pcm(from, to int) ([]byte, error) {
	b := make([]byte, 2*(to-from))
	if _, err := w.f.ReadAt(b, w.data+2*int64(from)); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("transcribe: reading audio: %w", err)
	}
	return b, nil
}

// reader reads all the samples in order, as a stream.
func (w *wavFile) reader() io.Reader { return io.NewSectionReader(w.f, w.data, 2*int64(w.samples)) }

// Close closes the file.
func (w *wavFile) Close() error { return w.f.Close() }

// readWAV returns the sample rate and all the PCM data of a 16-bit mono
// WAV: for audio known to be short (a prompt, a test's recording).
func readWAV(path string) (rate int, pcm []byte, err error) {
	w, err := openWAV(path)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = w.Close() }()
	pcm, err = w.pcm(0, w.samples)
	return w.rate, pcm, err
}

// writeWAV writes 16-bit mono PCM as a WAV file.
func writeWAV(path string, rate int, pcm []byte) error {
	if err := os.WriteFile(path, append(wavHeader(rate, len(pcm)), pcm...), 0o600); err != nil {
		return fmt.Errorf("transcribe: writing a chunk: %w", err)
	}
	return nil
}

// wavHeader is the header of a 16-bit mono WAV of size bytes of samples.
func wavHeader(rate, size int) []byte {
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+size)) //nolint:gosec // G115: chunks are minutes long
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)              // PCM
	binary.LittleEndian.PutUint16(h[22:], 1)              // mono
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))   //nolint:gosec // G115: a sample rate
	binary.LittleEndian.PutUint32(h[28:], uint32(2*rate)) //nolint:gosec // G115: a byte rate
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(size)) //nolint:gosec // G115: chunks are minutes long
	return h
}
