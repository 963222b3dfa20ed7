package compose

// builtinLayouts are the designs a request without a template is drawn
// with, one picked by the seed. Their palettes are placeholders: a
// built-in layout takes a brand's, a style's or a seed's colours.
var builtinLayouts = map[string]string{
	"face-right": `{
		"background": {"kind": "gradient", "colors": ["background", "background2"], "angle": 20},
		"face": {"box": [0.5, 0.05, 0.48, 0.95], "shape": "cutout", "outline": "text", "side": "right"},
		"texts": [
			{"name": "headline", "box": [0.04, 0.07, 0.5, 0.66], "size": 0.3, "highlight": "accent", "stroke": 0.07},
			{"name": "subline", "box": [0.04, 0.78, 0.34, 0.15], "font": "heavy", "size": 0.075, "plate": "primary",
			 "stroke": 0, "shadow": false, "maxWords": 3, "maxLines": 1}
		],
		"accents": [{"kind": "arrow", "box": [0.4, 0.72, 0.13, 0.22], "color": "accent", "aimFace": true}],
		"grade": "punchy",
		"palette": {"background": "#0d0630", "background2": "#5b0eeb", "primary": "#ff2e63", "accent": "#ffe600", "text": "#ffffff", "stroke": "#0b0b0b"}
	}`,
	"face-left-glow": `{
		"background": {"kind": "radial", "colors": ["background2", "background"], "center": [0.3, 0.45]},
		"face": {"box": [0.02, 0.06, 0.47, 0.94], "shape": "cutout", "outline": "accent", "side": "left"},
		"texts": [
			{"name": "headline", "box": [0.5, 0.08, 0.47, 0.64], "size": 0.3, "align": "right", "highlight": "accent"}
		],
		"accents": [{"kind": "badge", "box": [0.72, 0.76, 0.24, 0.15], "color": "primary", "whenAsked": true}],
		"grade": "warm",
		"palette": {"background": "#0d0630", "background2": "#5b0eeb", "primary": "#ff2e63", "accent": "#ffe600", "text": "#ffffff", "stroke": "#0b0b0b"}
	}`,
	"split": `{
		"background": {"kind": "split", "colors": ["background", "background2", "accent"], "angle": 78, "center": [0.52, 0.5]},
		"face": {"box": [0.5, 0.06, 0.48, 0.94], "shape": "cutout", "outline": "text", "side": "right"},
		"texts": [
			{"name": "headline", "box": [0.04, 0.1, 0.46, 0.72], "size": 0.28, "valign": "middle", "highlight": "accent"}
		],
		"accents": [{"kind": "bar", "box": [0.04, 0.86, 0.26, 0.035], "color": "primary"}],
		"grade": "punchy",
		"palette": {"background": "#0d0630", "background2": "#5b0eeb", "primary": "#ff2e63", "accent": "#ffe600", "text": "#ffffff", "stroke": "#0b0b0b"}
	}`,
	"stripes-top": `{
		"background": {"kind": "stripes", "colors": ["background", "background2"], "angle": 30},
		"face": {"box": [0.3, 0.4, 0.4, 0.6], "shape": "circle", "outline": "accent", "side": "center", "outlineWidth": 0.035},
		"texts": [
			{"name": "headline", "box": [0.04, 0.04, 0.92, 0.36], "size": 0.24, "align": "center", "highlight": "accent", "maxLines": 2}
		],
		"accents": [
			{"kind": "arrow", "box": [0.08, 0.56, 0.2, 0.24], "color": "accent", "aimFace": true},
			{"kind": "burst", "box": [0.73, 0.5, 0.23, 0.4], "color": "primary", "whenAsked": true}
		],
		"grade": "punchy",
		"palette": {"background": "#0d0630", "background2": "#5b0eeb", "primary": "#ff2e63", "accent": "#ffe600", "text": "#ffffff", "stroke": "#0b0b0b"}
	}`,
	"burst-center": `{
		"background": {"kind": "burst", "colors": ["background", "background2", "primary"], "center": [0.5, 0.5]},
		"face": {"box": [0.72, 0.44, 0.26, 0.56], "shape": "circle", "outline": "text", "side": "right"},
		"texts": [
			{"name": "headline", "box": [0.06, 0.12, 0.66, 0.76], "size": 0.32, "valign": "middle", "highlight": "accent", "stroke": 0.09}
		],
		"accents": [{"kind": "frame", "box": [0.015, 0.025, 0.97, 0.95], "color": "accent"}],
		"grade": "punchy",
		"palette": {"background": "#0d0630", "background2": "#5b0eeb", "primary": "#ff2e63", "accent": "#ffe600", "text": "#ffffff", "stroke": "#0b0b0b"}
	}`,
	"reference-bottom": `{
		"background": {"kind": "reference", "colors": ["background", "background2"], "angle": 90, "blur": 0.6, "dim": 0.35},
		"face": {"box": [0.55, 0.04, 0.43, 0.96], "shape": "cutout", "outline": "primary", "side": "right"},
		"texts": [
			{"name": "headline", "box": [0.04, 0.36, 0.54, 0.58], "size": 0.28, "valign": "bottom", "highlight": "accent"}
		],
		"accents": [{"kind": "badge", "box": [0.04, 0.07, 0.22, 0.15], "color": "accent", "textColor": "stroke", "whenAsked": true}],
		"grade": "moody",
		"palette": {"background": "#0d0630", "background2": "#5b0eeb", "primary": "#ff2e63", "accent": "#ffe600", "text": "#ffffff", "stroke": "#0b0b0b"}
	}`,
	"portrait-face-bottom": `{
		"aspect": "9:16",
		"background": {"kind": "gradient", "colors": ["background2", "background"], "angle": 100},
		"face": {"box": [0.02, 0.44, 0.96, 0.56], "shape": "cutout", "outline": "text", "side": "center"},
		"texts": [
			{"name": "headline", "box": [0.06, 0.05, 0.88, 0.33], "size": 0.26, "align": "center", "valign": "middle", "highlight": "accent"},
			{"name": "subline", "box": [0.12, 0.385, 0.76, 0.06], "font": "heavy", "size": 0.07, "align": "center", "plate": "primary",
			 "stroke": 0, "shadow": false, "maxWords": 3, "maxLines": 1}
		],
		"grade": "punchy",
		"palette": {"background": "#0d0630", "background2": "#5b0eeb", "primary": "#ff2e63", "accent": "#ffe600", "text": "#ffffff", "stroke": "#0b0b0b"}
	}`,
	"portrait-burst": `{
		"aspect": "9:16",
		"background": {"kind": "burst", "colors": ["background", "background2", "primary"], "center": [0.5, 0.3]},
		"face": {"box": [0.14, 0.07, 0.72, 0.42], "shape": "circle", "outline": "accent", "side": "center", "outlineWidth": 0.03},
		"texts": [
			{"name": "headline", "box": [0.05, 0.53, 0.9, 0.3], "size": 0.26, "align": "center", "valign": "middle", "highlight": "accent", "stroke": 0.09}
		],
		"accents": [{"kind": "badge", "box": [0.3, 0.86, 0.4, 0.08], "color": "accent", "textColor": "stroke", "whenAsked": true}],
		"grade": "punchy",
		"palette": {"background": "#0d0630", "background2": "#5b0eeb", "primary": "#ff2e63", "accent": "#ffe600", "text": "#ffffff", "stroke": "#0b0b0b"}
	}`,
	"portrait-split": `{
		"aspect": "9:16",
		"background": {"kind": "split", "colors": ["background", "background2", "accent"], "angle": 4, "center": [0.5, 0.5]},
		"face": {"box": [0.0, 0.5, 1.0, 0.5], "shape": "cutout", "outline": "accent", "side": "center"},
		"texts": [
			{"name": "headline", "box": [0.06, 0.06, 0.88, 0.4], "size": 0.28, "align": "center", "valign": "middle", "highlight": "accent"}
		],
		"accents": [{"kind": "arrow", "box": [0.72, 0.4, 0.22, 0.1], "color": "accent", "aimFace": true}],
		"grade": "warm",
		"palette": {"background": "#0d0630", "background2": "#5b0eeb", "primary": "#ff2e63", "accent": "#ffe600", "text": "#ffffff", "stroke": "#0b0b0b"}
	}`,
}
