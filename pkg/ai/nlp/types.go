package nlp

import (
	"sort"
	"strings"
)

// ContentType is a kind of video.
type ContentType string

// The content types DetectType scores.
const (
	Tutorial  ContentType = "tutorial"
	Review    ContentType = "review"
	Story     ContentType = "story"
	Interview ContentType = "interview"
	News      ContentType = "news"
	Gaming    ContentType = "gaming"
	List      ContentType = "list"
)

// TypeScore is a content type's cue density: weighted cue hits per 1,000
// words.
type TypeScore struct {
	Type  ContentType
	Score float64
	// Cues is how many different cues were found: the evidence behind
	// Score. One word said twice in a short text scores high on one cue.
	Cues int
}

// cues are each type's lexical cues (matched as whole words or phrases).
var cues = map[ContentType][]string{
	Tutorial:  {"how to", "step", "steps", "first", "next", "then", "make sure", "click", "install", "tool", "tip", "tips", "you need", "let's", "tutorial", "guide", "measure", "add", "remove", "adjust", "apply", "use a", "set up"},
	Review:    {"review", "pros", "cons", "worth", "rating", "compared", "price", "quality", "recommend", "verdict", "battery", "performance", "better than", "worse than", "value", "out of ten", "stars"},
	Story:     {"i was", "we were", "suddenly", "then i", "that day", "years ago", "remember", "happened", "told me", "i felt", "when i", "back then", "story", "finally"},
	Interview: {"welcome to the show", "my guest", "thanks for having me", "podcast", "episode", "interview", "tell us", "your journey", "what made you", "great question", "so tell me", "listeners"},
	News:      {"reported", "according to", "officials", "announced", "government", "breaking", "statement", "percent", "today", "this week", "sources", "policy", "election", "minister"},
	Gaming:    {"level", "boss", "game", "play", "player", "players", "gameplay", "loot", "quest", "spawn", "respawn", "match", "ranked", "build", "stream", "controller", "fps"},
	List:      {"number one", "number two", "number three", "top 10", "top ten", "top 5", "top five", "first up", "next up", "coming in at", "at number", "list", "ranking"},
}

// DetectType scores every content type by its cues per 1,000 words (plus
// question density and turn-taking for interviews), highest first.
func DetectType(text string) []TypeScore {
	norm := " " + strings.Join(Tokens(text), " ") + " "
	words := float64(max(1, strings.Count(norm, " ")-1))
	out := make([]TypeScore, 0, len(cues))
	for t, list := range cues {
		hits, distinct := 0, 0
		for _, c := range list {
			n := strings.Count(norm, " "+c+" ")
			hits += n
			if n > 0 {
				distinct++
			}
		}
		out = append(out, TypeScore{Type: t, Score: float64(hits) * 1000 / words, Cues: distinct})
	}
	// Conversations ask questions and alternate "you" and "I".
	questions := float64(strings.Count(text, "?"))
	for i := range out {
		if out[i].Type == Interview {
			out[i].Score += questions * 1000 / words * 0.5
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// HookFeatures are what makes an opening line pull a viewer in.
type HookFeatures struct {
	Question, Number, BoldClaim, DirectAddress, Curiosity bool
	// Score is 0..1.
	Score float64
}

var (
	wh          = map[string]bool{"what": true, "why": true, "how": true, "who": true, "when": true, "where": true, "which": true, "did": true, "do": true, "does": true, "is": true, "are": true, "can": true, "would": true, "have": true, "ever": true}
	numberWords = map[string]bool{"one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true, "eight": true, "nine": true, "ten": true, "hundred": true, "thousand": true, "million": true, "billion": true, "percent": true}
	bold        = map[string]bool{"best": true, "worst": true, "never": true, "always": true, "everyone": true, "nobody": true, "everything": true, "biggest": true, "only": true, "ever": true, "most": true, "insane": true, "impossible": true, "perfect": true, "ultimate": true, "wrong": true, "mistake": true, "mistakes": true, "guaranteed": true}
	curiosity   = []string{"did you know", "here's why", "here is why", "the reason", "what happens", "nobody", "secret", "this is why", "turns out", "won't believe", "the truth", "what if", "find out", "until", "the one thing", "no one"}
)

// Hook measures an opening line: a question, a number, a bold claim,
// direct address and a curiosity gap, with short lines preferred.
func Hook(sentence string) HookFeatures {
	toks := Tokens(sentence)
	var h HookFeatures
	if len(toks) == 0 {
		return h
	}
	trimmed := strings.TrimSpace(sentence)
	h.Question = strings.HasSuffix(trimmed, "?") || wh[toks[0]] && strings.Contains(trimmed, "?")
	for _, t := range toks {
		switch {
		case t[0] >= '0' && t[0] <= '9', numberWords[t]:
			h.Number = true
		}
		h.BoldClaim = h.BoldClaim || bold[t]
		h.DirectAddress = h.DirectAddress || t == "you" || t == "your" || t == "you're"
	}
	norm := " " + strings.Join(toks, " ") + " "
	for _, c := range curiosity {
		if strings.Contains(norm, " "+strings.Join(Tokens(c), " ")+" ") {
			h.Curiosity = true
			break
		}
	}
	score := 0.0
	for _, f := range []struct {
		on bool
		w  float64
	}{{h.Question, 0.25}, {h.Number, 0.2}, {h.BoldClaim, 0.2}, {h.DirectAddress, 0.15}, {h.Curiosity, 0.3}} {
		if f.on {
			score += f.w
		}
	}
	if len(toks) > 25 {
		score *= 25 / float64(len(toks))
	}
	h.Score = min(1, score)
	return h
}

var (
	affect      = WordSet("amazing incredible insane crazy love hate terrible awful shocking shocked unbelievable huge disaster perfect beautiful horrible furious scared terrified excited thrilled wow omg epic brutal devastating hilarious heartbreaking stunning painful angry happy sad fear worst best dead killed")
	intensifier = WordSet("so very really extremely totally absolutely completely literally super")
)

// Emotion is 0..1: strong-affect words and intensifiers per word, plus
// exclamations per sentence.
func Emotion(text string) float64 {
	toks := Tokens(text)
	if len(toks) == 0 {
		return 0
	}
	hits := 0.0
	for _, t := range toks {
		if affect[t] {
			hits++
		} else if intensifier[t] {
			hits += 0.5
		}
	}
	sentences := float64(max(1, strings.Count(text, ".")+strings.Count(text, "!")+strings.Count(text, "?")))
	return min(1, hits/float64(len(toks))*15+float64(strings.Count(text, "!"))/sentences*0.5)
}
