// Package imaging holds the drawing and framing tools the image services
// share, so that a text, an outline or a crop looks the same in every
// picture they make:
//
//   - a text setter (Fit, Block): short texts set the way thumbnails
//     carry them, at the largest size that fits a box, with an outline,
//     a drop shadow or a panel, a highlighted word, a turn;
//   - mask tools (Dilate, Blur, Shadow, RoundRect, Paint, BoxMean): the
//     coverage maps that outlines, shadows, plates and cut-outs are made
//     of, and the one way they are laid on a picture;
//   - framing (Crop, Window, Ratio): the crop of a picture to a shape
//     that keeps its faces and its salient parts;
//   - pixel measures (Luma, Clamp01).
//
// The generator's headlines, accents and cut-outs, the edit grammar's
// "add text" and crops, combine's labels, VS badge and halves are all
// drawn with it. It is pure Go image code: libvips stays with the
// service that decodes and encodes.
package imaging
