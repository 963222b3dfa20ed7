// Package critique is the local engine of POST /thumbnails/critique: it
// measures a thumbnail's pixels, turns the measurements into the seven
// documented scores, and words strengths, weaknesses and improvements from
// them and from the creator's niche. Nothing is canned: every number comes
// from the picture, so the same picture always gets the same critique, and
// a chat provider can rewrite the wording from the exported Metrics.
//
// # Measurements (Metrics)
//
// The picture is measured on a copy box-shrunk to 512 px on its longer
// side (the "working copy"), text is read as described under
// textReadability, and text regions are found on a copy shrunk to 168 px (168×94
// for 16:9: a thumbnail in a phone's feed). Luma is BT.709 on 8-bit
// components scaled to 0..1. Faces come from pkg/media/vision's detector (pigo);
// the largest face is the one measured.
//
//   - contrast c: RMS contrast, the standard deviation of luma (0..0.5).
//   - colourfulness C: Hasler and Süsstrunk (2003), σ_rgyb + 0.3·μ_rgyb
//     (0 grey, 33 "moderately", 59 "highly", 82+ "extremely" colourful).
//   - brightness B: mean luma; saturation S: mean HSV saturation; warmth W:
//     share of pixels with hue 330°..70° (red to yellow), HSV saturation
//     ≥ 0.3 and value ≥ 0.2.
//   - edge density ρ: share of working-copy pixels whose Sobel gradient
//     magnitude of luma, divided by 4, is ≥ 0.12.
//   - thirds T: closeness of a point (u, v) in fractions of the frame is
//     k(u, v) = exp(−d²/(2·0.1²)), d its distance to the nearest power
//     point (⅓ or ⅔ on each axis). Over the 64×64 spectral-residual
//     saliency map s (pkg/media/vision), T_s = clamp((Σ s·k / Σ s − k₀)/(1 − k₀)),
//     where k₀ ≈ 0.23 is the mean of k over the grid (an evenly spread
//     saliency scores 0); T = T_s without a face, (k(face centre) + T_s)/2
//     with one.
//   - face: share A (face box area / frame area; the box spans brows to
//     chin), height Y (box centre's distance from the top / frame height),
//     cut off (box within 1% of the frame's edge), eye contrast E (luma
//     standard deviation in the box's rows 15%..45%, columns 10%..90%).
//   - text regions, at 168 px: a pixel is a stroke edge where the
//     horizontal luma difference |L(x+1) − L(x−1)| ≥ 16 (of 255); a row
//     segment with ≥ 4 edges of both signs, each at most 6 px from the
//     next, is a piece of a text line; segments overlapping on
//     neighbouring rows join into a region. A region is text when it is
//     ≥ 3 px tall, ≥ 8 px wide, ≥ 1.2 times as wide as tall, at most half
//     the copy's height, ≥ 40% covered by segments, outside face boxes,
//     and two-toned: Otsu's split of its luma (with 1 px of margin)
//     explains ≥ 50% of the variance. Its contrast ratio R is WCAG's,
//     (L_hi + 0.05)/(L_lo + 0.05) on the two classes' mean relative
//     luminance, and its height h is in pixels of the 168 px copy.
//
// # Scores (Rate, Overall)
//
// clamp limits to 0..1. Every score is 10 × its formula, rounded to one
// decimal (halves away from zero).
//
//   - contrast = clamp(c / 0.25).
//   - composition = 0.6·T + 0.4·simplicity, simplicity = ρ/0.02 below
//     ρ = 0.02 (an empty frame), 1 up to ρ = 0.10, then
//     clamp(1 − (ρ − 0.10)/0.25) (a cluttered one).
//   - textReadability = 10 × the share of the text's letters that survive
//     at mobile size: OCR (services/thumbnails/internal/tesseract) reads the picture shrunk
//     to 640 px and its 168 px copy enlarged 4× (the information of the
//     168 px copy), and the share is the longest common subsequence of
//     the two readings' letters and digits over the first's. Without
//     text read it is 3.0: nothing is hard to read, but nothing tells
//     the viewer what the video is; text that mostly vanishes at mobile
//     size scores below that. The critique quotes the text it read.
//   - faceVisibility = 0 without a face, else 0.45·size + 0.30·position +
//     0.25·eyes, size = clamp(√(A/0.06)), position = 1 − clamp(3·(Y − ⅔)),
//     halved when cut off, eyes = clamp(E/0.10)·open, open =
//     clamp((EAR − 0.10)/0.10) from the landmarks' eye aspect ratio (1
//     without landmarks).
//   - colorAppeal = 0.8·clamp(C/70) + 0.2·exposure, exposure =
//     1 − clamp((|B − 0.5| − 0.25)/0.25).
//   - clickability = 0.25·contrast + 0.20·colorAppeal +
//     0.25·faceVisibility + 0.20·textReadability + 0.10·composition,
//     computed from those published (rounded) scores.
//   - emotionalImpact = 0.30·closeUp + 0.20·closeUp·expression +
//     0.20·clamp(S/0.6) + 0.10·clamp(W/0.35) + 0.20·clamp(c/0.25),
//     closeUp = clamp(√(A/0.15)), 0 without a face; expression =
//     1 − (1 − mouth)(1 − brows)(1 − smile) from the landmarks (0 without
//     them), mouth = clamp((O − 0.02)/0.10) of the inner lips' gap O,
//     brows = clamp((B − 0.13)/0.08) of the brows' height above the eyes
//     B, smile = clamp((M − 0.40)/0.12) of the mouth's width M, each over
//     the face width (vision.Landmarks' measures).
//   - overallScore = 0.15·contrast + 0.15·composition +
//     0.15·textReadability + 0.15·faceVisibility + 0.10·colorAppeal +
//     0.20·clickability + 0.10·emotionalImpact, from the rounded scores.
//
// # Attention areas
//
// Faces first (the two largest): centre of the box, radius 0.6 × its
// side, intensity 0.7 + 0.3 × the peak saliency inside it (faces draw the
// eye whatever their contrast). Then, unless the picture is flat (c <
// 0.02), the saliency map smoothed by two 3×3 box passes and rescaled to a
// maximum of 1: local maxima over 5×5 cells with s ≥ 0.35, strongest
// first, each grown into the 4-connected cells with s ≥ 0.3 × the peak
// not taken by a stronger one; centre = saliency-weighted centroid,
// radius = √(cells × cell area / π), intensity = the peak, all in source
// pixels. Blobs centred on a face are dropped; the rest are labelled
// "text" on a text region (with half a line of margin), else "bright
// region" / "dark region" when their mean luma is 0.15 above / below the
// picture's, "colour accent" when their mean saturation is 0.15 above
// it, else "subject". At most five areas; no radius exceeds half the
// shorter side; positions and radii are rounded to 0.1 px, intensities
// to 0.01.
//
// # Wording
//
// A score ≥ 7.0 is a strength; any lower score gets an improvement, and
// one ≤ 4.5 is also a weakness, both phrased from the measurement behind
// it (for example which face term is weakest, or whether the frame is
// empty, cluttered, or has its face on a thirds point but the rest
// scattered). The niche selects a profile by keyword (gaming, finance,
// education, tech, vlog, beauty, fitness, food; anything else is
// generic): each profile names three scores its thumbnails depend on and
// adds its own advice for the weakest of them; finance and education also
// call colourfulness above 90 / 100 loud. Improvements are ordered by the
// score they raise, lowest first (the niche advice counts half a point
// lower), at most five. The summary states the overall score, the best
// and worst scores and the first improvement.
package critique
