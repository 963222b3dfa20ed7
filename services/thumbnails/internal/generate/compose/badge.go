package compose

import (
	"strings"
	"unicode"
)

// A badge (or a burst) says one thing the prompt asks to be said: that
// the video is new, a comparison, an update, a tier list, live, free, on
// sale, the first, this year's, a part of a series. badgeWord finds it;
// a layout's accent with autoText shows it, and one with whenAsked is
// drawn only when there is one.

// badgeWords are the single words that ask for a badge, with the badge
// each gives.
var badgeWords = map[string]string{
	"new": "NEW", "vs": "VS", "versus": "VS", "update": "UPDATE", "updated": "UPDATED",
	"free": "FREE", "sale": "SALE", "livestream": "LIVE", "giveaway": "GIVEAWAY", "leaked": "LEAKED",
	"exclusive": "EXCLUSIVE", "breaking": "BREAKING",
}

// notNew are the words after "new" that make it a place or a date, not
// news: New York, New Year.
var notNew = wordSet(`york zealand jersey mexico orleans delhi hampshire england wales brunswick
	year year's years guinea caledonia haven`)

// badgeWord is the badge text prompt asks for, in its own words: the
// first of them in the text that head, the headline, does not already
// say; "" when the prompt asks for none. It recognises:
//
//	new (not New York, New Year), vs / versus, update(d), free, sale,
//	giveaway, leaked, exclusive, breaking          → that word
//	tier list                                      → TIER LIST
//	live stream, livestream, going live, live now,
//	LIVE in capitals                               → LIVE
//	50% off                                        → 50% OFF
//	#1, number one, no. 1                          → #1
//	a year 2000–2099                               → the year
//	part 2, episode 5, ep 5                        → PART 2, EP 5
//	top 10                                         → TOP 10
func badgeWord(text string, head []string) string {
	words := tokens(strings.ReplaceAll(text, "No. ", "No "))
	said := map[string]bool{}
	for _, w := range head {
		said[strings.ToUpper(w)] = true
	}
	upper := casingOf(words).upper
	for i := range words {
		b := badgeAt(words, i, upper)
		if b == "" {
			continue
		}
		repeated := true
		for _, part := range strings.Fields(b) {
			repeated = repeated && said[part]
		}
		if !repeated && len([]rune(b)) <= 12 {
			return b
		}
	}
	return ""
}

// badgeAt is the badge the words starting at i ask for, "" if none;
// upper says the text is in capitals throughout (a LIVE in it is not
// a shout).
func badgeAt(words []string, i int, upper bool) string {
	k := strings.ToLower(words[i])
	next := ""
	if i+1 < len(words) {
		next = strings.ToLower(words[i+1])
	}
	prev := ""
	if i > 0 {
		prev = strings.ToLower(words[i-1])
	}
	number := next != "" && strings.Trim(next, "0123456789") == ""
	switch {
	case k == "new":
		if notNew[next] {
			return ""
		}
		return "NEW"
	case k == "tier" && (next == "list" || next == "lists"):
		return "TIER LIST"
	case k == "live":
		if words[i] == "LIVE" && !upper || next == "stream" || next == "streaming" || next == "now" || prev == "going" || prev == "is" && i == len(words)-1 {
			return "LIVE"
		}
		return ""
	case strings.HasSuffix(k, "%") && next == "off":
		return strings.ToUpper(k) + " OFF"
	case strings.HasPrefix(k, "#") && len(k) > 1 && strings.Trim(k[1:], "0123456789") == "":
		return k
	case (k == "number" || k == "no") && (next == "one" || next == "1"):
		return "#1"
	case len(k) == 4 && strings.HasPrefix(k, "20") && strings.Trim(k, "0123456789") == "":
		return k
	case (k == "part" || k == "episode" || k == "ep") && number:
		if k == "episode" {
			k = "ep"
		}
		return strings.ToUpper(k) + " " + next
	case k == "top" && number:
		return "TOP " + next
	}
	if b, ok := badgeWords[k]; ok && unicode.IsLetter([]rune(k)[0]) {
		return b
	}
	return ""
}
