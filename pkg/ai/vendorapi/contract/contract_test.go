package contract_test

import (
	"strings"
	"testing"

	"hookline.dev/pkg/ai/vendorapi/contract"
)

// The validator rejects what the vendors reject.
func TestCheckRequest(t *testing.T) {
	img := map[string]any{"mime_type": "image/png", "data": "aGVsbG8="}
	tests := []struct {
		name string
		c    *contract.Contract
		op   string
		body any
		want string // a problem's substring; "" for none
	}{
		{"openai ok", contract.OpenAI, "createImage", map[string]any{"model": "gpt-image-2", "prompt": "x", "n": 1.0, "size": "1536x864"}, ""},
		{"openai unknown field", contract.OpenAI, "createImage", map[string]any{"prompt": "x", "outputFormat": "jpeg"}, `unknown field "outputFormat"`},
		{"openai bad enum", contract.OpenAI, "createImage", map[string]any{"prompt": "x", "quality": "ultra"}, "quality: ultra is not one of"},
		{"openai n too big", contract.OpenAI, "createImage", map[string]any{"prompt": "x", "n": 11.0}, "above the maximum"},
		{"openai no prompt", contract.OpenAI, "createImage", map[string]any{"model": "gpt-image-2"}, `required field "prompt"`},
		{"openai too many images", contract.OpenAI, "createImageEdit", map[string]any{"prompt": "x", "image": make([]any, 17)}, "at most 16"},
		{"openai file type", contract.OpenAI, "createImageEdit", map[string]any{"prompt": "x", "image": []any{contract.File{ContentType: "image/gif", Size: 10}}}, "file of type"},
		{"gemini ok", contract.Gemini, "generateContent", map[string]any{"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "x"}, map[string]any{"inline_data": img}}}},
			"generationConfig": map[string]any{"responseModalities": []any{"IMAGE"}, "imageConfig": map[string]any{"aspectRatio": "16:9"}}}, ""},
		{"gemini bad ratio", contract.Gemini, "generateContent", map[string]any{"contents": []any{map[string]any{"parts": []any{map[string]any{"text": "x"}}}},
			"generationConfig": map[string]any{"imageConfig": map[string]any{"aspectRatio": "16:10"}}}, "16:10 is not one of"},
		{"gemini bad role", contract.Gemini, "generateContent", map[string]any{"contents": []any{map[string]any{"role": "system", "parts": []any{map[string]any{"text": "x"}}}}}, "system is not one of"},
		{"gemini no contents", contract.Gemini, "generateContent", map[string]any{}, `required field "contents"`},
	}
	for _, tt := range tests {
		got := strings.Join(tt.c.CheckRequest(tt.op, tt.body), "; ")
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s: problems %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCheckResponse(t *testing.T) {
	if p := contract.OpenAI.CheckResponse("createImage", 429, []byte(`{"error":{"message":"m","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`)); len(p) != 0 {
		t.Errorf("a vendor error body refused: %v", p)
	}
	if p := contract.OpenAI.CheckResponse("createImage", 500, []byte(`{"error":{"message":"boom"}}`)); len(p) == 0 {
		t.Error("an error body without type, param and code accepted")
	}
	if p := contract.Gemini.CheckResponse("generateContent", 200, []byte(`{"candidates":[{"finishReason":"DONE"}]}`)); len(p) == 0 {
		t.Error("an unknown finish reason accepted")
	}
	if p := contract.Gemini.CheckResponse("generateContent", 418, []byte(`{"error":{"code":418,"message":"m","status":"INTERNAL"}}`)); len(p) == 0 {
		t.Error("an undocumented status accepted")
	}
}

// The models the issue names as shut down are refused, the current
// defaults taken.
func TestCheckModel(t *testing.T) {
	for _, m := range []string{"gemini-2.5-flash-image", "gemini-2.0-flash", "gemini-3.1-flash-image-preview"} {
		if why := contract.Gemini.CheckModel("image", m); !strings.Contains(why, "shut down") {
			t.Errorf("%s: %q", m, why)
		}
	}
	if why := contract.Gemini.CheckModel("image", "gemini-3.1-flash-image"); why != "" {
		t.Error(why)
	}
	if why := contract.OpenAI.CheckModel("transcription", "whisper-1"); why != "" {
		t.Error(why)
	}
}
