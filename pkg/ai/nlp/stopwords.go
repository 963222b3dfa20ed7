package nlp

import "strings"

// Hookline's one stop-word list. Every text product drops the common
// stop words before it weighs words: English function words (articles,
// pronouns, prepositions, conjunctions, auxiliaries and their
// contractions) and the vaguest verbs and nouns ("make", "thing"). A
// product adds the words of its own medium to them: a transcript's are
// transcriptStopwords (IsStopword); a thumbnail title adds its own
// (generate/compose) and keeps, for instance, the negations a
// transcript drops.

// commonStopwords are the stop words of every text.
var commonStopwords = WordSet(`a about again all also am an and any are as at be been being but by can could did do does down each
	for from get got had has have having he her here here's him his how i i'd i'll i'm i've in into is
	it it's its just let's like me might must my nor of off on once one or our out over own really same
	she should so some such than that that's the their them then there there's these they they're this
	those to too under until up us very was we we're we've were what what's when where which while who
	who's whom why will with would you you'll you're you've your thing things make makes made want use
	using something may let s t`)

// transcriptStopwords are what transcripts and the texts measured like
// them drop besides: more function words (negations among them), the
// fillers and discourse markers of speech, numbers said as words and
// the vague words of a talk ("guys", "stuff", "welcome").
var transcriptStopwords = WordSet(`above after against almost aren't because before below between both can't cannot couldn't didn't
	doesn't doing don't during else even ever every few further gets getting hadn't hasn't haven't he'd
	he'll he's hers herself himself how's if isn't itself likely more most much mustn't myself no not
	now only other ought ours ourselves quite rather shan't she'd she'll she's shouldn't theirs
	themselves they'd they'll they've through upon wasn't we'd we'll weren't when's where's why's won't
	wouldn't you'd yours yourself yourselves um uh uhm erm hmm yeah yep okay ok oh gonna wanna gotta
	kinda sorta actually basically literally right well anyway stuff lot lots way going go goes went
	come comes came take takes took put puts see look looks wants know knows think thinks say says said
	tell told used anything everything nothing someone anyone everyone many still back two three first
	next last new good great little big today thank thanks guys hey hi hello welcome d ll ve re m don
	isn ain called call calls`)

// IsCommonStopword reports a stop word of every text.
func IsCommonStopword(w string) bool { return commonStopwords[w] }

// IsStopword reports a stop word of a transcript: a common stop word,
// another function word or a word of speech that says nothing.
func IsStopword(w string) bool { return commonStopwords[w] || transcriptStopwords[w] }

// WordSet is the set of the words of s, split at white space: how the
// word lists of Hookline's text rules are written.
func WordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
