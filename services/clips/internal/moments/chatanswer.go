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
