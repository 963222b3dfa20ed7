package critique

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// metric names one of the seven scores.
type metric int

const (
	mContrast metric = iota
	mComposition
	mText
	mFace
	mColour
	mClick
	mEmotion
	metricCount
)

var metricNames = [metricCount]string{"contrast", "composition", "text readability", "face visibility",
	"colour appeal", "clickability", "emotional impact"}

func (s Scores) of(k metric) float64 {
	return [metricCount]float64{s.Contrast, s.Composition, s.TextReadability, s.FaceVisibility,
		s.ColorAppeal, s.Clickability, s.EmotionalImpact}[k]
}

// Wording thresholds: a score at or above strongAt is a strength, one
// below it gets an improvement, and one at or below weakAt is also a
// weakness.
const (
	strongAt = 7.0
	weakAt   = 4.5
	// maxImprovements caps the list: a critique names the fixes that
	// matter most, not every possible one.
	maxImprovements = 5
)

// profile is what thumbnails of a niche live on.
type profile struct {
	// name is the niche as the summary names it; "" for the generic
	// profile.
	name string
	// keywords are the words (or phrases) of a niche that select it.
	keywords []string
	// priorities are the scores the niche's thumbnails depend on; the
	// weakest of them gets the niche's advice.
	priorities []metric
	// advice is the niche's fix for each priority.
	advice map[metric]string
	// maxColour, when set, is the colourfulness above which the niche's
	// audience reads a picture as loud rather than trustworthy.
	maxColour float64
}

// profiles is checked in order; the first with a matching keyword wins,
// generic is the fallback.
var profiles = []profile{
	{name: "gaming", keywords: []string{"gaming", "game", "games", "gamer", "esports", "minecraft", "fortnite", "roblox", "twitch", "speedrun"},
		priorities: []metric{mColour, mContrast, mEmotion},
		advice: map[metric]string{
			mColour:   "Gaming thumbnails live on saturated neon: push the colour toward glowing cyan, magenta or lime accents on a dark background",
			mContrast: "Gaming feeds are loud: add a glow or rim light around the subject and darken the background behind it",
			mEmotion:  "Show an exaggerated, high-energy reaction (shock, hype) close to the camera, with hot accent colours",
		}},
	{name: "finance", keywords: []string{"finance", "financial", "money", "invest", "investing", "investment", "stocks", "stock", "crypto", "business", "economy", "trading", "budget", "real estate"},
		priorities: []metric{mText, mComposition, mContrast},
		advice: map[metric]string{
			mText:        "Finance viewers click on a clear promise: state it in 2–4 words in a clean sans with high contrast, ideally with a number or amount",
			mComposition: "Keep the frame clean to read as trustworthy: one subject, one number or chart, a plain background",
			mContrast:    "Use a clean, high-contrast palette (dark navy or white with one accent colour) for a trustworthy look",
		}, maxColour: 90},
	{name: "education", keywords: []string{"education", "educational", "tutorial", "tutorials", "learn", "learning", "science", "history", "math", "maths", "course", "lesson", "howto", "how-to", "how to", "explainer", "study"},
		priorities: []metric{mText, mComposition, mFace},
		advice: map[metric]string{
			mText:        "Name the topic in 2–4 large, clean words so a learner knows what the video teaches",
			mComposition: "Show one clear diagram or object with space around it and drop decoration",
			mFace:        "A friendly, well-lit face looking at the camera builds trust with learners",
		}, maxColour: 100},
	{name: "tech", keywords: []string{"tech", "technology", "review", "reviews", "unboxing", "gadget", "gadgets", "smartphone", "phone", "pc", "software", "programming", "coding", "ai"},
		priorities: []metric{mComposition, mContrast, mText},
		advice: map[metric]string{
			mComposition: "Show the product large, on a thirds point, against a plain or dark background",
			mContrast:    "Light the product with a bright rim against a dark backdrop for a premium, high-contrast look",
			mText:        "Add the product name or your verdict in 2–3 bold words",
		}},
	{name: "vlog", keywords: []string{"vlog", "vlogs", "vlogging", "lifestyle", "travel", "family", "daily", "day in the life", "personal"},
		priorities: []metric{mFace, mEmotion, mColour},
		advice: map[metric]string{
			mFace:    "Vlog viewers click on people: a close-up face filling 10–25% of the frame, eyes lit and looking at the camera",
			mEmotion: "Show a genuine, strong emotion and warm tones (skin, sunset, orange accents) to invite viewers in",
			mColour:  "Use bright, warm, natural colour (golden hour, vivid scenery) rather than a muted grade",
		}},
	{name: "beauty", keywords: []string{"beauty", "makeup", "make-up", "fashion", "skincare", "style", "hair", "nails", "outfit"},
		priorities: []metric{mFace, mColour, mComposition},
		advice: map[metric]string{
			mFace:        "Beauty thumbnails sell the result: a sharp, evenly lit close-up of the face or the look",
			mColour:      "Use clean, luminous colour with one signature accent (lipstick red, pastel) and true skin tones",
			mComposition: "A before/after split or one clean close-up beats a busy collage",
		}},
	{name: "fitness", keywords: []string{"fitness", "workout", "gym", "sport", "sports", "running", "yoga", "health", "training", "football", "soccer", "basketball"},
		priorities: []metric{mEmotion, mContrast, mFace},
		advice: map[metric]string{
			mEmotion:  "Show effort or triumph up close (strain, a shout, a result) with warm, saturated colour",
			mContrast: "Use hard, contrasty light that carves out muscles and motion against a dark background",
			mFace:     "Show the athlete's face large and sharp: viewers follow people, not equipment",
		}},
	{name: "food", keywords: []string{"food", "cooking", "cook", "recipe", "recipes", "baking", "kitchen", "restaurant", "chef", "mukbang"},
		priorities: []metric{mColour, mComposition, mEmotion},
		advice: map[metric]string{
			mColour:      "Food sells on warm, saturated colour: boost warm tones and vibrance, keep the background neutral",
			mComposition: "Fill the frame with the dish, close and on a thirds point, with little else around it",
			mEmotion:     "Add a close-up reaction to the first bite, or steam, drips and texture that make it tempting",
		}},
}

var generic = profile{
	priorities: []metric{mFace, mText, mContrast},
	advice: map[metric]string{
		mFace:     "Across niches, thumbnails with a large, expressive face get the most clicks: add or enlarge one",
		mText:     "Add or enlarge a 2–4 word hook that complements the title rather than repeating it",
		mContrast: "Separate the subject from the background with light and a darker or blurred backdrop",
	},
}

// profileOf returns the profile matching niche (any case), or generic.
func profileOf(niche string) profile {
	words := strings.FieldsFunc(strings.ToLower(niche), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
	joined := " " + strings.Join(words, " ") + " "
	for _, p := range profiles {
		for _, k := range p.keywords {
			if strings.Contains(joined, " "+k+" ") {
				return p
			}
		}
	}
	return generic
}

// wording is the written part of a critique.
type wording struct {
	strengths, weaknesses, improvements []string
	summary                             string
}

// fix is an improvement, the score it raises, and the score's standing:
// the weakest is listed first.
type fix struct {
	text   string
	metric metric
	score  float64
}

// write words the critique of m, scored s, for the niche profile p.
func write(m Metrics, s Scores, p profile) wording {
	w := wording{strengths: []string{}, weaknesses: []string{}, improvements: []string{}}
	var fixes []fix
	for k := range metricCount {
		v := s.of(k)
		if v >= strongAt {
			w.strengths = append(w.strengths, strength(k, m))
			continue
		}
		// Every score short of a strength has room to improve; only a low
		// one is called a weakness.
		weak, improve := weakness(k, m, s)
		if v <= weakAt {
			w.weaknesses = append(w.weaknesses, weak)
		}
		if improve != "" {
			fixes = append(fixes, fix{improve, k, v})
		}
	}
	if p.maxColour > 0 && m.Colourfulness > p.maxColour {
		w.weaknesses = append(w.weaknesses, fmt.Sprintf(
			"The colour is loud for %s (colourfulness %.0f): its audience trusts calmer pictures.", p.name, m.Colourfulness))
		fixes = append(fixes, fix{"Tone the palette down to one or two brand colours plus neutrals.", mColour, s.ColorAppeal})
	}
	// The niche's advice goes to its weakest priority, in place of the
	// generic fix of that score and ahead of the fixes of the same
	// standing.
	k := p.priorities[0]
	for _, q := range p.priorities[1:] {
		if s.of(q) < s.of(k) {
			k = q
		}
	}
	fixes = slices.DeleteFunc(fixes, func(f fix) bool { return f.metric == k })
	fixes = append(fixes, fix{fmt.Sprintf("%s (%s now).", p.advice[k], measured(k, m, s)), k, s.of(k) - 0.5})
	sort.SliceStable(fixes, func(i, j int) bool { return fixes[i].score < fixes[j].score })
	for _, f := range fixes[:min(len(fixes), maxImprovements)] {
		w.improvements = append(w.improvements, f.text)
	}
	w.summary = summary(s, p, w.improvements[0])
	return w
}

// measured states the measurement behind score k, for the niche advice.
func measured(k metric, m Metrics, s Scores) string {
	switch k {
	case mContrast:
		return fmt.Sprintf("RMS contrast %.2f", m.Contrast)
	case mComposition:
		return fmt.Sprintf("composition %.1f/10, edge density %.0f%%", s.Composition, 100*m.EdgeDensity)
	case mText:
		return fmt.Sprintf("text readability %.1f/10", s.TextReadability)
	case mFace:
		if m.Faces == 0 {
			return "no face found"
		}
		return fmt.Sprintf("the face fills %.1f%% of the frame", 100*m.Face.Share)
	case mColour:
		return fmt.Sprintf("colourfulness %.0f", m.Colourfulness)
	case mEmotion:
		return fmt.Sprintf("emotional impact %.1f/10", s.EmotionalImpact)
	default:
		return fmt.Sprintf("clickability %.1f/10", s.Clickability)
	}
}

// strength says why score k is high.
func strength(k metric, m Metrics) string {
	switch k {
	case mContrast:
		return fmt.Sprintf("Strong contrast (RMS %.2f): it stands out in a busy feed.", m.Contrast)
	case mComposition:
		return fmt.Sprintf("Clean composition: the subject sits near a thirds point and the frame is uncluttered (edge density %.0f%%).", 100*m.EdgeDensity)
	case mText:
		return fmt.Sprintf("Your text %s reads at phone size: %.0f%% of its letters are read again in the %d px wide feed image.",
			quote(m.Reading.Words), 100*m.Reading.Survived, mobileSide)
	case mFace:
		return faceStrength(m.Face)
	case mColour:
		return fmt.Sprintf("Vivid colour (colourfulness %.0f; \"highly colourful\" starts at 59).", m.Colourfulness)
	case mClick:
		return "High click appeal: contrast, colour, face and text work together."
	default:
		return "Emotional pull: a close face with saturated, warm colour."
	}
}

// weakness says why score k is low and how to raise it ("" when the
// other fixes already cover it).
func weakness(k metric, m Metrics, s Scores) (string, string) {
	switch k {
	case mContrast:
		return fmt.Sprintf("Low contrast (RMS %.2f; punchy thumbnails reach about %.2f): it looks washed out in the feed.", m.Contrast, goodContrast),
			fmt.Sprintf("Deepen the shadows and lift the highlights, or darken the background behind the subject, to reach an RMS contrast near %.2f.", goodContrast)
	case mComposition:
		switch {
		case m.EdgeDensity < emptyEdges && len(m.Attention) > 0:
			return fmt.Sprintf("Most of the frame is empty (edge density %.1f%%): the subject is small.", 100*m.EdgeDensity),
				"Fill the frame: crop in on the subject or enlarge it so that it covers a third of the frame or more."
		case m.EdgeDensity < emptyEdges:
			return fmt.Sprintf("Nothing in the frame catches the eye (edge density %.1f%%).", 100*m.EdgeDensity),
				"Add a clear subject: a face, a product or one bold object."
		case simplicity(m.EdgeDensity) < 0.5:
			return fmt.Sprintf("A busy frame: %.0f%% of pixels are edges, so no element dominates.", 100*m.EdgeDensity),
				"Simplify: blur or plain-colour the background so that two or three large elements remain."
		case m.Faces > 0 && m.FaceThirds >= 0.7:
			return "The face sits on a thirds point, but the other salient elements are scattered.",
				"Line the text and other elements up on the opposite thirds line and keep the rest of the frame calm."
		default:
			return "The main subject sits away from the rule of thirds' power points.",
				"Move the face or main subject onto a thirds intersection, about a third in from the left or right."
		}
	case mText:
		return textWeakness(m)
	case mFace:
		return faceWeakness(m)
	case mColour:
		switch {
		case exposure(m.Brightness) < 0.5 && m.Brightness < 0.5:
			return fmt.Sprintf("Too dark (mean luma %.2f): colours turn muddy.", m.Brightness),
				"Brighten the midtones and the subject; keep only the background dark."
		case exposure(m.Brightness) < 0.5:
			return fmt.Sprintf("Too bright (mean luma %.2f): colours wash out.", m.Brightness),
				"Bring the highlights down and add a darker background or vignette."
		default:
			return fmt.Sprintf("Muted colour (colourfulness %.0f; \"moderately colourful\" starts at 33).", m.Colourfulness),
				"Raise vibrance, or add one saturated accent colour that contrasts with the subject."
		}
	case mClick:
		return fmt.Sprintf("Low click appeal: %s hold it back.", weakestParts(s)), ""
	default:
		return emotionWeakness(m, s)
	}
}

// emotionWeakness names the missing parts of emotional impact, and fixes
// those the face and colour fixes do not cover.
func emotionWeakness(m Metrics, s Scores) (string, string) {
	var why, do []string
	switch {
	case m.Faces == 0:
		why = append(why, "no face")
	case closeUp(m) < 0.5:
		why = append(why, "no close-up face")
		do = append(do, "crop closer so the face and its expression fill more of the frame")
	}
	muted, cool := m.Saturation < goodSaturation/2, m.Warmth < goodWarmth/3
	if muted {
		why = append(why, "muted colour")
	}
	if cool {
		why = append(why, "few warm tones")
	}
	switch {
	case muted && s.ColorAppeal >= strongAt:
		do = append(do, "add warm, saturated accents (red, orange, yellow)")
	case cool:
		// Saturation itself is the colour fix's.
		do = append(do, "lean the accents warm (red, orange, yellow)")
	}
	if contrastTerm(m) < 0.5 {
		why = append(why, "flat contrast")
	}
	if len(why) == 0 {
		why = append(why, "no single element carries it")
	}
	if len(do) == 0 {
		do = append(do, "show a stronger expression, closer to the camera")
	}
	fixText := strings.Join(do, ", and ") + "."
	return fmt.Sprintf("Little emotional pull: %s.", strings.Join(why, ", ")),
		strings.ToUpper(fixText[:1]) + fixText[1:]
}

// faceStrength says what makes the face work, from the terms of its
// score that are at their best.
func faceStrength(f FaceMetrics) string {
	var good []string
	if f.Height <= 2.0/3 && !f.CutOff {
		good = append(good, "sits whole in the upper two thirds")
	}
	if f.EyeContrast >= goodEyeContrast {
		good = append(good, "shows clearly visible eyes")
	}
	s := fmt.Sprintf("A clear face: it fills %.0f%% of the frame", 100*f.Share)
	switch len(good) {
	case 1:
		s += " and " + good[0]
	case 2:
		s += ", " + good[0] + " and " + good[1]
	}
	return s + "."
}

// faceWeakness names the face's weakest term.
func faceWeakness(m Metrics) (string, string) {
	f := m.Face
	switch {
	case m.Faces == 0:
		return "No face found.", "Add a close-up face with a clear emotion: faces are the strongest attention cue."
	case f.CutOff:
		return "The face is cut off by the frame's edge.", "Keep the whole face inside the frame, in its upper two thirds."
	case f.Share < visibleFace/2:
		return fmt.Sprintf("The face is small: it fills %.1f%% of the frame.", 100*f.Share),
			"Crop in so that the face fills about 10–25% of the frame."
	case f.Height > 2.0/3:
		return "The face sits low in the frame.", "Move the face into the upper two thirds of the frame."
	default:
		return "The eyes are hard to see (little contrast in the eye band).",
			"Light the eyes and keep hair, hands and sunglasses off them."
	}
}

// textWeakness says what keeps the text from reading at phone size, and
// how to fix it.
func textWeakness(m Metrics) (string, string) {
	rd := m.Reading
	larger := "Make the text larger, at least 60 px tall at 1280×720, with fewer words if needed."
	if len(m.Text) > 0 && float64(m.Text[0].Height) >= goodTextHeight {
		larger = "Use white or yellow text with a thick dark stroke, or set it on a solid plate, and keep busy detail away from the letters."
	}
	if len(rd.Lost) > 0 {
		larger = fmt.Sprintf("So that %s reads on a phone: %s%s", quote(rd.Lost), strings.ToLower(larger[:1]), larger[1:])
	}
	switch {
	case len(rd.Words) == 0 && len(m.Text) == 0:
		return fmt.Sprintf("No text found: nothing tells a viewer what the video is at phone size (%d px wide).", mobileSide),
			"Add 2–4 words of large text (at least 60 px tall at 1280×720) with a dark stroke or on a contrasting plate."
	case len(rd.Words) == 0:
		return "Something like lettering is there, but no word of it can be read, even at full size.",
			"Set the words in a plain heavy sans with a thick dark stroke or on a solid plate, away from busy detail."
	case len(rd.Lost) == len(rd.Words) || rd.Survived < 0.5:
		return fmt.Sprintf("Your text %s is unreadable at mobile size (%d px wide): only %.0f%% of its letters can be read there.",
			quote(rd.Words), mobileSide, 100*rd.Survived), larger
	case len(rd.Lost) > 0:
		return fmt.Sprintf("Of your text %s, %s is lost at mobile size (%d px wide).", quote(rd.Words), quote(rd.Lost), mobileSide), larger
	default:
		return fmt.Sprintf("Your text %s only partly survives at mobile size: %.0f%% of its letters are read there.",
			quote(rd.Words), 100*rd.Survived), larger
	}
}

// maxQuote is the longest quotation of the text read, in runes.
const maxQuote = 60

// quote is words quoted for the wording, shortened with an ellipsis.
func quote(words []string) string {
	s := []rune(strings.Join(words, " "))
	if len(s) > maxQuote {
		s = append(s[:maxQuote-1], '…')
	}
	return "'" + string(s) + "'"
}

// weakestParts names the two weakest components of clickability.
func weakestParts(s Scores) string {
	parts := []metric{mContrast, mColour, mFace, mText, mComposition}
	sort.SliceStable(parts, func(i, j int) bool { return s.of(parts[i]) < s.of(parts[j]) })
	return metricNames[parts[0]] + " and " + metricNames[parts[1]]
}

// summary is one paragraph: the overall score, the best and the worst
// score, and the first fix.
func summary(s Scores, p profile, first string) string {
	best, worst := mContrast, mContrast
	for k := range metricCount {
		if s.of(k) > s.of(best) {
			best = k
		}
		if s.of(k) < s.of(worst) {
			worst = k
		}
	}
	as := ""
	if p.name != "" {
		as = " for " + p.name
	}
	return fmt.Sprintf("Scores %.1f/10 overall%s. Strongest: %s (%.1f); weakest: %s (%.1f). First fix — %s",
		Overall(s), as, metricNames[best], s.of(best), metricNames[worst], s.of(worst), first)
}
