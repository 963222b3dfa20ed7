package textai

import (
	"fmt"
	"strings"

	"hookline.dev/pkg/ai/nlp"
)

// archetype is a visual approach to a thumbnail. The approaches are the
// vocabulary (like a designer's); what is drawn with them — subject,
// headline, mood — comes from the measured source.
type archetype struct {
	id        string
	name      string
	scene     string // composition, with %s for the subject
	textStyle string
	placement string
	hook      func(d digest, main, second string) string
	why       string
}

var (
	reaction = archetype{id: "reaction", name: "Reaction close-up",
		scene:     "close-up of a face with a strong, surprised expression on the left third, %s large and sharp on the right",
		textStyle: "bold condensed uppercase, white with a thick black stroke, one word highlighted", placement: "top-right",
		hook: func(d digest, main, _ string) string { return upperWords(main, 3) + "?!" },
		why:  "a readable face with an emotion is the strongest click cue at phone size"}
	reveal = archetype{id: "before-after", name: "Before and after",
		scene:     "split-screen before and after of %s, dull and flat on the left, vivid and finished on the right, an arrow between",
		textStyle: "heavy uppercase with a coloured label box", placement: "top",
		hook: func(d digest, main, second string) string { return upperWords(main, 2) + " GLOW-UP" },
		why:  "a visible transformation promises the outcome the video delivers"}
	detail = archetype{id: "detail", name: "The key detail",
		scene:     "dramatic macro close-up of %s with a red circle and arrow pointing at one detail, dark vignette",
		textStyle: "large uppercase question, yellow on black shadow", placement: "bottom-left",
		hook: func(d digest, main, second string) string { return upperWords(second, 2) + "?" },
		why:  "a circled detail opens a curiosity gap the title can close"}
	numbered = archetype{id: "number", name: "The big number",
		scene:     "%s arranged in a clean grid on a bold colour background, one giant number in front",
		textStyle: "giant numeral with short uppercase label", placement: "left",
		hook: func(d digest, main, _ string) string {
			n := d.number
			if n == "" {
				n = fmt.Sprint(max(3, min(10, countPhrases(d))))
			}
			return n + " " + upperWords(main, 2)
		},
		why: "a number sets expectations and reads instantly"}
	versus = archetype{id: "versus", name: "Head to head",
		scene:     "%s on the left versus %s on the right, split by a diagonal line with a round VS badge",
		textStyle: "bold uppercase with VS badge", placement: "center",
		hook: func(d digest, main, second string) string {
			return upperWords(main, 1) + " VS " + upperWords(second, 1)
		},
		why: "a comparison promises a verdict"}
	quote = archetype{id: "quote", name: "The quote",
		scene:     "two people facing each other in conversation, %s in the background, warm studio light",
		textStyle: "quoted phrase in bold sentence case on a highlight bar", placement: "bottom",
		hook: func(d digest, main, _ string) string { return "“" + hookFragment(d, main) + "”" },
		why:  "a strong line from the conversation is the reason to press play"}
	scene = archetype{id: "moment", name: "The moment",
		scene:     "cinematic wide shot of %s at the decisive moment, motion blur, high contrast",
		textStyle: "short uppercase with glow", placement: "bottom-right",
		hook: func(d digest, main, _ string) string { return hookFragment(d, main) },
		why:  "the story's turning point, frozen, makes viewers want the rest"}
)

// archetypesFor picks three approaches that suit the content type.
func archetypesFor(t nlp.ContentType) []archetype {
	switch t {
	case "tutorial":
		return []archetype{reveal, detail, reaction}
	case "review":
		return []archetype{reaction, versus, detail}
	case "story":
		return []archetype{reaction, scene, detail}
	case "interview":
		return []archetype{quote, reaction, detail}
	case "news":
		return []archetype{scene, reaction, numbered}
	case "gaming":
		return []archetype{reaction, scene, versus}
	case "list":
		return []archetype{numbered, reaction, detail}
	}
	return []archetype{reaction, detail, numbered}
}

// mood turns measured emotion and type into lighting and palette words.
func mood(d digest) string {
	switch {
	case d.emotion >= 0.5:
		return "saturated red and yellow palette, hard rim light, high energy"
	case d.contentType() == "tutorial" || d.contentType() == "review":
		return "clean bright palette with one accent colour, soft key light"
	case d.contentType() == "news":
		return "cool blue and white palette, crisp contrast"
	default:
		return "vivid complementary palette, strong contrast"
	}
}

func (l *Local) concepts(src Source) Analysis {
	d := measure(src)
	main := d.mainKeyword(nil)
	if main == "" {
		main = "the video"
	}
	second := d.phrase(0, main)
	if second == "" {
		second = main
	}
	third := d.phrase(1, main, second)
	if third == "" {
		third = second
	}
	subjects := []string{main, second, third}
	a := Analysis{Title: d.title, Summary: summaryText(d, 400), Engine: l.Name()}
	if a.Title == "" {
		a.Title = "Your Video"
	}
	for i, at := range archetypesFor(d.contentType()) {
		subject := subjects[i]
		var sceneText string
		if at.id == versus.id {
			sceneText = fmt.Sprintf(at.scene, main, second)
		} else {
			sceneText = fmt.Sprintf(at.scene, subject)
		}
		hook := strings.TrimSpace(at.hook(d, subject, subjects[(i+1)%3]))
		prompt := conceptPrompt(fmt.Sprintf("YouTube thumbnail, %s; %s", sceneText, mood(d)), hook, at.placement)
		a.Concepts = append(a.Concepts, Concept{
			ID:    at.id,
			Title: at.name + ": " + titleCase(subject),
			Description: fmt.Sprintf("Built on “%s” (%s). %s.", subject, evidence(d, subject),
				capitalise(at.why)),
			Prompt: prompt, HookText: hook, TextStyle: at.textStyle, TextPlacement: at.placement,
		})
	}
	return a
}

// conceptPrompt is a concept's prompt that generates it as designed: it
// quotes the hook text as the headline (a generation sets quoted text as
// it is), unless it quotes it already, and says where the headline goes
// when placement is a known one ("headline \"…\" at the top-right").
func conceptPrompt(prompt, hook, placement string) string {
	hook = strings.Trim(strings.TrimSpace(hook), "“”\"")
	out := strings.TrimRight(strings.TrimSpace(prompt), ".;, ")
	switch {
	case hook == "":
		return prompt
	case QuotedHeadline(prompt) == hook:
		if !placements[placement] {
			return prompt
		}
		out += "; text"
	default:
		out += fmt.Sprintf("; headline \"%s\"", hook)
	}
	if placements[placement] {
		out += " at the " + placement
	}
	return out
}

// placements are the textPlacement values a prompt can say where the
// headline goes with.
var placements = map[string]bool{"top": true, "bottom": true, "left": true, "right": true, "center": true,
	"top-left": true, "top-right": true, "bottom-left": true, "bottom-right": true}

// evidence states why a phrase was chosen, in measured terms.
func evidence(d digest, phrase string) string {
	n := d.mentions(phrase)
	kind := "a key phrase"
	for i, p := range d.phrases {
		if strings.EqualFold(p.Text, phrase) {
			kind = fmt.Sprintf("key phrase #%d", i+1)
			break
		}
	}
	if n <= 1 {
		return kind
	}
	return fmt.Sprintf("%s, said %d times", kind, n)
}

// summaryText joins the extractive summary up to n code points.
func summaryText(d digest, n int) string {
	parts := make([]string, 0, len(d.summary))
	for _, s := range d.summary {
		parts = append(parts, strings.TrimSpace(s.Text))
	}
	out := strings.Join(parts, " ")
	if out == "" {
		out = d.title
	}
	return clip(out, n)
}

// hookFragment is a short piece of the hook sentence around the main
// phrase, at most five words, for quote-style headlines.
func hookFragment(d digest, main string) string {
	words := strings.Fields(strings.Trim(d.hook, ".!?\"“”"))
	if len(words) == 0 {
		return upperWords(main, 3)
	}
	if len(words) <= 5 {
		return strings.Join(words, " ")
	}
	// Start at the first content word so the fragment is not "and so the".
	start := 0
	for start < len(words)-5 && nlp.IsStopword(strings.ToLower(strings.Trim(words[start], ",;:"))) {
		start++
	}
	return strings.Trim(strings.Join(words[start:start+5], " "), ",;:") + "…"
}

func upperWords(s string, n int) string { return strings.ToUpper(firstWords(s, n)) }

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func countPhrases(d digest) int {
	n := 0
	for _, p := range d.phrases {
		if p.Count >= 2 {
			n++
		}
	}
	return n
}
