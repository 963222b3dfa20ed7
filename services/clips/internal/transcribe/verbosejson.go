package transcribe

// verbose is the verbose_json answer of an OpenAI-compatible
// transcription server. Tagged, unlike the domain types: it decodes the
// provider's wire format and never leaves this package.
type verbose struct {
	Text     string `json:"text"`
	Segments []struct {
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		Text  string  `json:"text"`
	} `json:"segments"`
	Words []struct {
		Word  string  `json:"word"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		// Probability is faster-whisper's per-word confidence; OpenAI and
		// whisper.cpp leave it out.
		Probability *float64 `json:"probability"`
	} `json:"words"`
}
