package providerfake_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/providerfake"
)

// post sends a raw request and returns the status and the error body's
// message ("" when the answer is not an error).
func post(t *testing.T, url, contentType, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(data, &e)
	return resp.StatusCode, e.Error.Message
}

// form builds an edits body: fields, then one image part per entry of
// images (content type → data).
func form(t *testing.T, fields map[string]string, images [][2]string) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, im := range images {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="image[]"; filename="a"`)
		h.Set("Content-Type", im[0])
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(im[1]))
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), buf.String()
}

func TestOpenAIRefusesWhatTheAPIRefuses(t *testing.T) {
	fake := providerfake.NewOpenAI(t)
	auth := map[string]string{"Authorization": "Bearer " + fake.Key()}
	gen := fake.URL() + "/v1/images/generations"
	png := string(providerfake.PNG(32, 32, "p"))
	editFields := map[string]string{"model": "gpt-image-1", "prompt": "x"}

	tests := []struct {
		name, url, contentType, body string
		header                       map[string]string
		status                       int
		message                      string
	}{
		{"no key", gen, "application/json", `{"model":"gpt-image-1","prompt":"x"}`, nil, 401, "Incorrect API key"},
		{"unknown path", fake.URL() + "/v1/images/generate", "application/json", `{}`, auth, 404, "Invalid URL"},
		{"unknown field", gen, "application/json", `{"model":"gpt-image-1","prompt":"x","outputFormat":"jpeg"}`, auth, 400, "Unknown parameter: 'outputFormat'"},
		{"response_format is dall-e only", gen, "application/json", `{"model":"gpt-image-1","prompt":"x","response_format":"b64_json"}`, auth, 400, "Unknown parameter: 'response_format'"},
		{"input_fidelity is edits only", gen, "application/json", `{"model":"gpt-image-1","prompt":"x","input_fidelity":"high"}`, auth, 400, "Unknown parameter: 'input_fidelity'"},
		{"dall-e default model", gen, "application/json", `{"prompt":"x"}`, auth, 400, "'model'"},
		{"bad size", gen, "application/json", `{"model":"gpt-image-1","prompt":"x","size":"1280x720"}`, auth, 400, "'size'"},
		{"empty prompt", gen, "application/json", `{"model":"gpt-image-1","prompt":" "}`, auth, 400, "'prompt'"},
		{"n out of range", gen, "application/json", `{"model":"gpt-image-1","prompt":"x","n":11}`, auth, 400, "'n'"},
		{"form on generations", gen, "multipart/form-data; boundary=x", "--x--", auth, 400, "application/json"},
	}
	add := func(name string, status int, message string, fields map[string]string, images [][2]string) {
		ct, body := form(t, fields, images)
		tests = append(tests, struct {
			name, url, contentType, body string
			header                       map[string]string
			status                       int
			message                      string
		}{name, fake.URL() + "/v1/images/edits", ct, body, auth, status, message})
	}
	add("edits without an image", 400, "'image'", editFields, nil)
	add("edits with an octet-stream image", 400, "unsupported mimetype", editFields, [][2]string{{"application/octet-stream", png}})
	add("edits with a mislabelled image", 400, "declared image/jpeg", editFields, [][2]string{{"image/jpeg", png}})
	add("edits with a corrupt image", 400, "could not be decoded", editFields, [][2]string{{"image/png", png[:40]}})
	add("edits with an unknown field", 400, "Unknown parameter: 'style'", map[string]string{"model": "gpt-image-1", "prompt": "x", "style": "vivid"}, [][2]string{{"image/png", png}})
	add("fidelity on the mini model", 400, "not supported with the model gpt-image-1-mini", map[string]string{"model": "gpt-image-1-mini", "prompt": "x", "input_fidelity": "high"}, [][2]string{{"image/png", png}})
	add("edits with a bad fidelity", 400, "'input_fidelity'", map[string]string{"model": "gpt-image-1", "prompt": "x", "input_fidelity": "max"}, [][2]string{{"image/png", png}})

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, msg := post(t, tt.url, tt.contentType, tt.body, tt.header)
			if status != tt.status || !strings.Contains(msg, tt.message) {
				t.Errorf("answer %d %q, want %d containing %q", status, msg, tt.status, tt.message)
			}
		})
	}
	for _, c := range fake.Calls() {
		if c.Problem == "" || c.Status < 400 {
			t.Errorf("call recorded as valid: %+v", c)
		}
	}
}

func TestOpenAIAnswersDistinctPictures(t *testing.T) {
	fake := providerfake.NewOpenAI(t)
	auth := map[string]string{"Authorization": "Bearer " + fake.Key()}
	seen := map[string]bool{}
	for range 3 {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, fake.URL()+"/v1/images/generations",
			strings.NewReader(`{"model":"gpt-image-1","prompt":"same prompt","size":"1024x1024","output_format":"jpeg","quality":"low"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", auth["Authorization"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Data []struct {
				B64JSON string `json:"b64_json"`
			} `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(body.Data) != 1 {
			t.Fatalf("answer %d %v %+v", resp.StatusCode, err, body)
		}
		pic, err := base64.StdEncoding.DecodeString(body.Data[0].B64JSON)
		if err != nil || !bytes.HasPrefix(pic, []byte{0xFF, 0xD8, 0xFF}) {
			t.Fatalf("picture is not a base64 JPEG: %v", err)
		}
		seen[string(pic)] = true
	}
	if len(seen) != 3 {
		t.Errorf("%d distinct pictures in 3 calls", len(seen))
	}
}

func TestGeminiRefusesWhatTheAPIRefuses(t *testing.T) {
	fake := providerfake.NewGemini(t)
	key := map[string]string{"x-goog-api-key": fake.Key()}
	url := fake.URL() + "/v1beta/models/gemini-3.1-flash-image:generateContent"
	img := base64.StdEncoding.EncodeToString(providerfake.PNG(16, 16, "g"))
	body := func(parts, config string) string {
		return `{"contents":[{"role":"user","parts":[` + parts + `]}],"generationConfig":` + config + `}`
	}
	okConfig := `{"responseModalities":["IMAGE"],"imageConfig":{"aspectRatio":"16:9"}}`
	tests := []struct {
		name, url, body string
		header          map[string]string
		status          int
		message         string
	}{
		{"no key", url, body(`{"text":"x"}`, okConfig), nil, 403, "unregistered callers"},
		{"wrong key", url, body(`{"text":"x"}`, okConfig), map[string]string{"x-goog-api-key": "nope"}, 400, "API key not valid"},
		{"key in the query", url + "?key=" + fake.Key(), body(`{"text":"x"}`, okConfig), key, 400, "header only"},
		{"wrong method path", fake.URL() + "/v1beta/models/gemini-3.1-flash-image:predict", body(`{"text":"x"}`, okConfig), key, 404, "not a generateContent"},
		{"unknown part field", url, body(`{"text":"x"},{"inlinedata2":{"mime_type":"image/png","data":"`+img+`"}}`, okConfig), key, 400, `Unknown name "inlinedata2"`},
		{"unknown config field", url, body(`{"text":"x"}`, `{"responseModalities":["IMAGE"],"aspect_ratio":"16:9"}`), key, 400, `Unknown name "aspect_ratio"`},
		{"no image modality", url, body(`{"text":"x"}`, `{"imageConfig":{"aspectRatio":"16:9"}}`), key, 400, "responseModalities"},
		{"bad aspect ratio", url, body(`{"text":"x"}`, `{"responseModalities":["IMAGE"],"imageConfig":{"aspectRatio":"16:10"}}`), key, 400, "aspect ratio"},
		{"text and image in one part", url, body(`{"text":"x","inline_data":{"mime_type":"image/png","data":"`+img+`"}}`, okConfig), key, 400, "exactly one"},
		{"bad base64", url, body(`{"inline_data":{"mime_type":"image/png","data":"%%"}}`, okConfig), key, 400, "Base64"},
		{"mislabelled image", url, body(`{"inline_data":{"mime_type":"image/jpeg","data":"`+img+`"}}`, okConfig), key, 400, "declared image/jpeg"},
		{"no contents", url, `{"generationConfig":` + okConfig + `}`, key, 400, "contents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, msg := post(t, tt.url, "application/json", tt.body, tt.header)
			if status != tt.status || !strings.Contains(msg, tt.message) {
				t.Errorf("answer %d %q, want %d containing %q", status, msg, tt.status, tt.message)
			}
		})
	}
	status, msg := post(t, url, "application/json", body(`{"text":"x"},{"inlineData":{"mimeType":"image/png","data":"`+img+`"}}`, okConfig), key)
	if status != 200 || msg != "" {
		t.Errorf("camelCase inline data: %d %q, want 200", status, msg)
	}
}

// The fakes hold each model to its catalogue entry and refuse models the
// vendor does not serve, with the vendor's status and error body.
func TestFakesEnforceTheCatalogue(t *testing.T) {
	g := providerfake.NewGemini(t)
	key := map[string]string{"x-goog-api-key": g.Key()}
	img := `{"inline_data":{"mime_type":"image/png","data":"` + base64.StdEncoding.EncodeToString(providerfake.PNG(8, 8, "i")) + `"}}`
	body := func(n int) string {
		parts := `{"text":"x"}` + strings.Repeat(","+img, n)
		return `{"contents":[{"role":"user","parts":[` + parts + `]}],"generationConfig":{"responseModalities":["IMAGE"],"imageConfig":{"aspectRatio":"16:9"}}}`
	}
	at := func(model string) string { return g.URL() + "/v1beta/models/" + model + ":generateContent" }
	for _, tc := range []struct {
		name, url, body string
		status          int
		message         string
	}{
		{"14 images", at("gemini-3.1-flash-image"), body(14), 200, ""},
		{"15 images", at("gemini-3.1-flash-image"), body(15), 400, "at most 14"},
		{"a ratio only 3.1 flash takes", at("gemini-3-pro-image"), strings.Replace(body(0), "16:9", "4:1", 1), 400, "aspect ratio"},
		{"shut down", at("gemini-2.5-flash-image"), body(1), 404, "is not found for API version v1beta"},
		{"unknown", at("gemini-9-image"), body(1), 404, "is not found"},
	} {
		status, msg := post(t, tc.url, "application/json", tc.body, key)
		if status != tc.status || !strings.Contains(msg, tc.message) {
			t.Errorf("gemini %s: %d %q, want %d %q", tc.name, status, msg, tc.status, tc.message)
		}
	}

	o := providerfake.NewOpenAI(t)
	auth := map[string]string{"Authorization": "Bearer " + o.Key()}
	gen := o.URL() + "/v1/images/generations"
	for _, tc := range []struct {
		name, body string
		status     int
		message    string
	}{
		{"gpt-image-2 draws 16:9", `{"model":"gpt-image-2","prompt":"x","size":"1536x864"}`, 200, ""},
		{"gpt-image-1.5 does not", `{"model":"gpt-image-1.5","prompt":"x","size":"1536x864"}`, 400, "'size'"},
		{"gpt-image-2 sides by 16", `{"model":"gpt-image-2","prompt":"x","size":"1530x860"}`, 400, "divisible by 16"},
		{"unknown model", `{"model":"gpt-image-9","prompt":"x"}`, 400, "'model'"},
	} {
		status, msg := post(t, gen, "application/json", tc.body, auth)
		if status != tc.status || !strings.Contains(msg, tc.message) {
			t.Errorf("openai %s: %d %q, want %d %q", tc.name, status, msg, tc.status, tc.message)
		}
	}
	o.Retire("gpt-image-2")
	if status, msg := post(t, gen, "application/json", `{"model":"gpt-image-2","prompt":"x"}`, auth); status != 404 || !strings.Contains(msg, "does not exist") {
		t.Errorf("retired: %d %q", status, msg)
	}
}
