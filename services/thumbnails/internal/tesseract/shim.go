package tesseract

/*
#cgo pkg-config: tesseract lept
#cgo LDFLAGS: -lgomp
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <tesseract/capi.h>

// hl_word is one word read: its UTF-8 text (malloc'd), box and confidence.
typedef struct {
	char *text;
	int left, top, right, bottom;
	float confidence;
} hl_word;

static void hl_close(TessBaseAPI *h) {
	TessBaseAPIEnd(h);
	TessBaseAPIDelete(h);
}

// hl_open creates a handle for language lang with its model in datapath
// (NULL: the library's default), in page segmentation mode psm, with the
// library's messages silenced. It returns NULL when the model cannot be
// loaded.
static TessBaseAPI *hl_open(const char *datapath, const char *lang, int psm, char **names, char **values, int nvars) {
	TessBaseAPI *h = TessBaseAPICreate();
	if (h == NULL) {
		return NULL;
	}
	// Set before Init so that loading the model does not print either.
	TessBaseAPISetVariable(h, "debug_file", "/dev/null");
	if (TessBaseAPIInit2(h, datapath, lang, OEM_LSTM_ONLY) != 0) {
		TessBaseAPIDelete(h);
		return NULL;
	}
	TessBaseAPISetVariable(h, "debug_file", "/dev/null");
	TessBaseAPISetPageSegMode(h, (TessPageSegMode)psm);
	for (int i = 0; i < nvars; i++) {
		if (!TessBaseAPISetVariable(h, names[i], values[i])) {
			hl_close(h);
			return NULL;
		}
	}
	return h;
}


// hl_read recognises the w×h 8-bit grey image px (stride bytes per row)
// and returns its words in *out (malloc'd, *n of them; free with
// hl_free). It returns non-zero when recognition fails.
static int hl_read(TessBaseAPI *h, const unsigned char *px, int w, int hgt, int stride, int ppi, hl_word **out, int *n) {
	*out = NULL;
	*n = 0;
	// Debian's libtesseract runs parts of the LSTM on an OpenMP team as
	// wide as the machine, whose idle threads spin: with a handle per
	// core already, recognise on the calling thread alone. The setting
	// belongs to the thread, and cgo calls move between threads, so it
	// is made on every call (it costs nothing).
	omp_set_num_threads(1);
	TessBaseAPISetImage(h, px, w, hgt, 1, stride);
	TessBaseAPISetSourceResolution(h, ppi);
	if (TessBaseAPIRecognize(h, NULL) != 0) {
		TessBaseAPIClear(h);
		return 1;
	}
	TessResultIterator *it = TessBaseAPIGetIterator(h);
	if (it == NULL) {
		TessBaseAPIClear(h);
		return 0;
	}
	int cap = 16;
	hl_word *words = malloc(cap * sizeof(hl_word));
	int count = 0;
	const TessPageIterator *pi = TessResultIteratorGetPageIteratorConst(it);
	do {
		char *text = TessResultIteratorGetUTF8Text(it, RIL_WORD);
		if (text == NULL) {
			continue;
		}
		if (count == cap) {
			cap *= 2;
			words = realloc(words, cap * sizeof(hl_word));
		}
		hl_word *wd = &words[count];
		wd->text = strdup(text);
		TessDeleteText(text);
		wd->confidence = TessResultIteratorConfidence(it, RIL_WORD);
		if (!TessPageIteratorBoundingBox(pi, RIL_WORD, &wd->left, &wd->top, &wd->right, &wd->bottom)) {
			wd->left = wd->top = wd->right = wd->bottom = 0;
		}
		count++;
	} while (TessResultIteratorNext(it, RIL_WORD));
	TessResultIteratorDelete(it);
	TessBaseAPIClear(h);
	*out = words;
	*n = count;
	return 0;
}

static void hl_free(hl_word *words, int n) {
	for (int i = 0; i < n; i++) {
		free(words[i].text);
	}
	free(words);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"unsafe"
)

// handle is one initialised TessBaseAPI. It is not safe for concurrent
// use: the Reader's pool hands it to one caller at a time.
type handle struct{ api *C.TessBaseAPI }

// open loads lang from dir ("" for the library's default) into a new
// handle reading in page segmentation mode psm.
func open(dir, lang string, psm int, vars [][2]string) (*handle, error) {
	var cdir *C.char
	if dir != "" {
		cdir = C.CString(dir)
		defer C.free(unsafe.Pointer(cdir))
	}
	clang := C.CString(lang)
	defer C.free(unsafe.Pointer(clang))
	names := make([]*C.char, len(vars)+1)
	values := make([]*C.char, len(vars)+1)
	for i, v := range vars {
		names[i], values[i] = C.CString(v[0]), C.CString(v[1])
		defer C.free(unsafe.Pointer(names[i]))
		defer C.free(unsafe.Pointer(values[i]))
	}
	api := C.hl_open(cdir, clang, C.int(psm), &names[0], &values[0], C.int(len(vars)))
	if api == nil {
		return nil, fmt.Errorf("tesseract: cannot load the %q model from %q", lang, dirName(dir))
	}
	return &handle{api: api}, nil
}

func (h *handle) close() { C.hl_close(h.api) }

// errRecognise is a recognition the library reported as failed.
var errRecognise = errors.New("tesseract: recognition failed")

// read recognises g at ppi pixels per inch.
func (h *handle) read(g *image.Gray, ppi int) ([]Word, error) {
	w, hgt := g.Rect.Dx(), g.Rect.Dy()
	if w == 0 || hgt == 0 {
		return nil, nil
	}
	var out *C.hl_word
	var n C.int
	// The pixels are Go memory, read by the library only during the call.
	if C.hl_read(h.api, (*C.uchar)(unsafe.Pointer(&g.Pix[0])), C.int(w), C.int(hgt), C.int(g.Stride), C.int(ppi), &out, &n) != 0 {
		return nil, errRecognise
	}
	if n == 0 {
		return nil, nil
	}
	defer C.hl_free(out, n)
	cw := unsafe.Slice(out, int(n))
	words := make([]Word, 0, len(cw))
	for _, c := range cw {
		words = append(words, Word{
			Text:       C.GoString(c.text),
			Box:        image.Rect(int(c.left), int(c.top), int(c.right), int(c.bottom)),
			Confidence: float64(c.confidence),
		})
	}
	return words, nil
}

func dirName(dir string) string {
	if dir == "" {
		return "the library's default tessdata"
	}
	return dir
}
