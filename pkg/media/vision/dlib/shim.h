// shim.h is the C face of the dlib shim (shim.cc): opaque handles and
// plain arrays, so cgo never sees C++.
#ifndef HOOKLINE_DLIB_SHIM_H
#define HOOKLINE_DLIB_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hl_detector hl_detector;
typedef struct hl_predictor hl_predictor;

// hl_detector_new returns dlib's frontal (HOG) face detector, or NULL.
hl_detector *hl_detector_new(void);
void hl_detector_free(hl_detector *d);

// hl_detect finds faces in an 8-bit grey image of w×h pixels, rows stride
// bytes apart, upsampled `upsample` times first (each doubles the image, so
// faces half the size are found). It writes up to max boxes as
// left, top, right, bottom (inclusive, in the given image's pixels) to
// rects and their confidences to scores, and returns how many it found, or
// -1 with err set.
int hl_detect(hl_detector *d, const unsigned char *gray, int w, int h, int stride, int upsample,
              double threshold, int *rects, double *scores, int max, char *err, int errlen);

// hl_predictor_load reads a shape predictor model (the 68-point
// shape_predictor_68_face_landmarks.dat), or returns NULL with err set.
hl_predictor *hl_predictor_load(const char *path, char *err, int errlen);
void hl_predictor_free(hl_predictor *p);

// hl_landmarks places the predictor's points inside the box left, top,
// right, bottom of the grey image and writes them as x, y pairs to xy
// (2 × the model's point count). It returns the point count, or -1 with
// err set. A predictor may be used by many threads at once.
int hl_landmarks(hl_predictor *p, const unsigned char *gray, int w, int h, int stride, int left,
                 int top, int right, int bottom, int *xy, int max, char *err, int errlen);

#ifdef __cplusplus
}
#endif

#endif
