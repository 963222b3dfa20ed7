// shim.cc wraps the two dlib objects Hookline uses — the HOG frontal face
// detector and the shape predictor — behind the C functions of shim.h.
#include "shim.h"

#include <cstring>
#include <exception>
#include <vector>

#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>

struct hl_detector {
  dlib::frontal_face_detector det;
};

struct hl_predictor {
  dlib::shape_predictor sp;
};

namespace {

void set_err(char *err, int errlen, const char *msg) {
  if (err == nullptr || errlen <= 0) return;
  std::strncpy(err, msg, errlen - 1);
  err[errlen - 1] = '\0';
}

void load_gray(dlib::array2d<unsigned char> &img, const unsigned char *gray, int w, int h,
               int stride) {
  img.set_size(h, w);
  for (int y = 0; y < h; y++) {
    std::memcpy(&img[y][0], gray + static_cast<long>(y) * stride, w);
  }
}

}  // namespace

extern "C" {

hl_detector *hl_detector_new(void) {
  try {
    auto *d = new hl_detector;
    d->det = dlib::get_frontal_face_detector();
    return d;
  } catch (...) {
    return nullptr;
  }
}

void hl_detector_free(hl_detector *d) { delete d; }

int hl_detect(hl_detector *d, const unsigned char *gray, int w, int h, int stride, int upsample,
              double threshold, int *rects, double *scores, int max, char *err, int errlen) {
  try {
    dlib::array2d<unsigned char> img;
    load_gray(img, gray, w, h, stride);
    double scale = 1;
    for (int i = 0; i < upsample; i++) {
      dlib::pyramid_up(img);
      scale *= 2;
    }
    std::vector<dlib::rect_detection> dets;
    d->det(img, dets, threshold);
    int n = 0;
    for (const auto &det : dets) {
      if (n == max) break;
      const auto &r = det.rect;
      rects[4 * n + 0] = static_cast<int>(r.left() / scale);
      rects[4 * n + 1] = static_cast<int>(r.top() / scale);
      rects[4 * n + 2] = static_cast<int>(r.right() / scale);
      rects[4 * n + 3] = static_cast<int>(r.bottom() / scale);
      scores[n] = det.detection_confidence;
      n++;
    }
    return n;
  } catch (const std::exception &e) {
    set_err(err, errlen, e.what());
    return -1;
  }
}

hl_predictor *hl_predictor_load(const char *path, char *err, int errlen) {
  try {
    auto *p = new hl_predictor;
    dlib::deserialize(path) >> p->sp;
    return p;
  } catch (const std::exception &e) {
    set_err(err, errlen, e.what());
    return nullptr;
  }
}

void hl_predictor_free(hl_predictor *p) { delete p; }

int hl_landmarks(hl_predictor *p, const unsigned char *gray, int w, int h, int stride, int left,
                 int top, int right, int bottom, int *xy, int max, char *err, int errlen) {
  try {
    dlib::array2d<unsigned char> img;
    load_gray(img, gray, w, h, stride);
    dlib::full_object_detection shape =
        p->sp(img, dlib::rectangle(left, top, right, bottom));
    int n = static_cast<int>(shape.num_parts());
    if (n > max) n = max;
    for (int i = 0; i < n; i++) {
      xy[2 * i] = static_cast<int>(shape.part(i).x());
      xy[2 * i + 1] = static_cast<int>(shape.part(i).y());
    }
    return n;
  } catch (const std::exception &e) {
    set_err(err, errlen, e.what());
    return -1;
  }
}

}  // extern "C"
