package critique

// chatAnswer is the chat model's answer, the JSON chatSchema asks for.
// Tagged, unlike the domain types: it decodes the model's wire format and
// never leaves this package.
type chatAnswer struct {
	Strengths    []string `json:"strengths"`
	Weaknesses   []string `json:"weaknesses"`
	Improvements []string `json:"improvements"`
	Summary      string   `json:"summary"`
}

// chatSchema is the JSON schema of chatAnswer the model is held to.
var chatSchema = func() map[string]any {
	list := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	return map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"strengths", "weaknesses", "improvements", "summary"},
		"properties": map[string]any{"strengths": list, "weaknesses": list, "improvements": list, "summary": map[string]any{"type": "string"}},
	}
}()
