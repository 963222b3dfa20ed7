package chatmodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// OpenAI-compatible chat completions.

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openAIBody struct {
	Model          string          `json:"model"`
	Messages       []openAIMessage `json:"messages"`
	ResponseFormat map[string]any  `json:"response_format"`
	Temperature    *float64        `json:"temperature,omitempty"`
}

func openAIRequest(model string, r Request) openAIBody {
	b := openAIBody{
		Model: model,
		Messages: []openAIMessage{
			{Role: "system", Content: r.System},
			{Role: "user", Content: r.User},
		},
		ResponseFormat: map[string]any{
			"type": "json_schema",
			"json_schema": map[string]any{
				"name":   r.SchemaName,
				"strict": true,
				"schema": r.Schema,
			},
		},
	}
	if r.Temperature > 0 {
		t := r.Temperature
		b.Temperature = &t
	}
	return b
}

type openAIAnswer struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// decodeAnswer reads a 2xx answer into a; one that is not JSON is
// ErrMalformed.
func decodeAnswer(data []byte, a any) error {
	if err := json.Unmarshal(data, a); err != nil {
		return fmt.Errorf("%w: the response is not JSON", ErrMalformed)
	}
	return nil
}

func openAIContent(data []byte) (string, error) {
	var a openAIAnswer
	if err := decodeAnswer(data, &a); err != nil {
		return "", err
	}
	if len(a.Choices) == 0 {
		return "", fmt.Errorf("%w: no choices", ErrMalformed)
	}
	m := a.Choices[0].Message
	switch {
	case m.Refusal != nil && *m.Refusal != "":
		return "", fmt.Errorf("%w: the model refused: %s", ErrMalformed, *m.Refusal)
	case a.Choices[0].FinishReason == "length":
		return "", fmt.Errorf("%w: the answer was cut off (finish_reason length)", ErrMalformed)
	case m.Content == nil:
		return "", fmt.Errorf("%w: no content", ErrMalformed)
	}
	return *m.Content, nil
}

// Gemini generateContent.

type geminiPart struct {
	Text string `json:"text"`
}

type geminiContentBody struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiBody struct {
	SystemInstruction geminiContentBody   `json:"systemInstruction"`
	Contents          []geminiContentBody `json:"contents"`
	GenerationConfig  map[string]any      `json:"generationConfig"`
}

func geminiRequest(r Request) geminiBody {
	cfg := map[string]any{
		"responseMimeType": "application/json",
		"responseSchema":   geminiSchema(r.Schema),
	}
	if r.Temperature > 0 {
		cfg["temperature"] = r.Temperature
	}
	return geminiBody{
		SystemInstruction: geminiContentBody{Parts: []geminiPart{{Text: r.System}}},
		Contents:          []geminiContentBody{{Role: "user", Parts: []geminiPart{{Text: r.User}}}},
		GenerationConfig:  cfg,
	}
}

// geminiSchema translates a JSON Schema into Gemini's OpenAPI-subset
// dialect: upper-case type names, no additionalProperties, and
// propertyOrdering so that the answer's keys come in the schema's order.
func geminiSchema(s map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		switch k {
		case "additionalProperties", "$schema":
			continue
		case "type":
			if t, ok := v.(string); ok {
				v = strings.ToUpper(t)
			}
		case "properties":
			props, _ := v.(map[string]any)
			conv := make(map[string]any, len(props))
			for name, p := range props {
				if m, ok := p.(map[string]any); ok {
					conv[name] = geminiSchema(m)
				}
			}
			v = conv
		case "items":
			if m, ok := v.(map[string]any); ok {
				v = geminiSchema(m)
			}
		}
		out[k] = v
	}
	if req, ok := s["required"].([]string); ok {
		out["propertyOrdering"] = req
	}
	return out
}

type geminiAnswer struct {
	Candidates []struct {
		Content struct {
			Parts []geminiPart `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
}

func geminiContent(data []byte) (string, error) {
	var a geminiAnswer
	if err := decodeAnswer(data, &a); err != nil {
		return "", err
	}
	if a.PromptFeedback != nil && a.PromptFeedback.BlockReason != "" {
		return "", fmt.Errorf("%w: the prompt was blocked: %s", ErrMalformed, a.PromptFeedback.BlockReason)
	}
	if len(a.Candidates) == 0 {
		return "", fmt.Errorf("%w: no candidates", ErrMalformed)
	}
	c := a.Candidates[0]
	if c.FinishReason != "" && c.FinishReason != "STOP" {
		return "", fmt.Errorf("%w: finishReason %s", ErrMalformed, c.FinishReason)
	}
	var b strings.Builder
	for _, p := range c.Content.Parts {
		b.WriteString(p.Text)
	}
	if b.Len() == 0 {
		return "", errors.Join(ErrMalformed, errors.New("empty answer"))
	}
	return b.String(), nil
}
