package moments

// chatAnswer is the chat model's answer, the JSON chatSchema asks for.
// Tagged, unlike the domain types: it decodes the model's wire format and
// never leaves this package.
type chatAnswer struct {
	Clips []chatClip `json:"clips"`
}

type chatClip struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Hook  string `json:"hook"`
}

// chatSchema is the JSON schema of chatAnswer the model is held to.
var chatSchema = map[string]any{
	"type": "object", "additionalProperties": false, "required": []string{"clips"},
	"properties": map[string]any{"clips": map[string]any{"type": "array", "items": map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"id", "title", "hook"},
		"properties": map[string]any{"id": map[string]any{"type": "string"}, "title": map[string]any{"type": "string"}, "hook": map[string]any{"type": "string"}},
	}}},
}

// chatMatches is the chat model's answer to which sentences match a
// prompt, the JSON chatMatchSchema asks for.
type chatMatches struct {
	Moments []chatMoment `json:"moments"`
}

type chatMoment struct {
	Sentence int     `json:"sentence"`
	Start    float64 `json:"start"`
	End      float64 `json:"end"`
	Quote    string  `json:"quote"`
}

// chatMatchSchema is the JSON schema of chatMatches.
var chatMatchSchema = map[string]any{
	"type": "object", "additionalProperties": false, "required": []string{"moments"},
	"properties": map[string]any{"moments": map[string]any{"type": "array", "items": map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"sentence", "start", "end", "quote"},
		"properties": map[string]any{"sentence": map[string]any{"type": "integer"}, "start": map[string]any{"type": "number"},
			"end": map[string]any{"type": "number"}, "quote": map[string]any{"type": "string"}},
	}}},
}
