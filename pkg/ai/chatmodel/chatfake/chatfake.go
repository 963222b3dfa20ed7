// Package chatfake is a local HTTP fake of the two chat APIs chatmodel
// speaks, for tests. It checks each request against the vendor's contract
// (pkg/ai/vendorapi/contract: path, key header, fields, types, enums, a JSON
// schema asked for) and serves only the models of chatmodel.Catalogues
// (plus any a test adds with Serve, as a self-hosted server serves its
// own): an unknown, shut-down or retired model is answered as the vendor
// answers it (OpenAI 404 model_not_found, Gemini 404 NOT_FOUND). It
// answers with what the test scripts — an object, raw text that is not
// JSON, or an error status with the vendor's error body — and checks
// every answer against the contract too. GET /v1/models/{model} and
// GET /v1beta/models/{model} look models up.
package chatfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/ai/vendorapi/contract"
)

// Call is one request the fake received.
type Call struct {
	Provider string // "openai" or "gemini"
	Model    string
	System   string
	User     string
	Schema   map[string]any
}

// Reply is one scripted answer: Status (default 200) and either Content
// (the model's text, sent inside the provider's envelope) or, with a
// non-2xx Status, the message of the vendor's error body, whose code
// (OpenAI's error.code, Gemini's error.status) is Code, or the status's
// usual one. Header is sent with it (Retry-After).
type Reply struct {
	Status  int
	Content string
	Code    string
	Header  http.Header
}

// Server is the fake. Replies are served in order; when they run out,
// Default answers (nil: 500).
type Server struct {
	*httptest.Server
	Key     string
	Default func(Call) Reply

	t       testing.TB
	mu      sync.Mutex
	replies []Reply
	calls   []Call
	extra   []string
	retired map[string]bool
}

// New starts a fake expecting key, closed when t ends.
func New(t testing.TB, key string) *Server {
	s := &Server{Key: key, t: t, retired: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Push queues replies.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, r...)
}

// Serve adds models the fake serves besides the catalogues', as a
// self-hosted server (Ollama, vLLM, LocalAI) serves its own names.
func (s *Server) Serve(models ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extra = append(s.extra, models...)
}

// Retire makes the fake forget model, as a vendor does when it shuts a
// model down; Restore undoes it.
func (s *Server) Retire(model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retired[model] = true
}

// Restore undoes Retire.
func (s *Server) Restore(model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.retired, model)
}

// Calls returns the requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// serves reports whether model is served by provider today.
func (s *Server) serves(provider, model string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, shut := contract.Gemini.Models.ShutDown[model]
	return !s.retired[model] && !shut &&
		(slices.Contains(chatmodel.Catalogues[provider].Models, model) || slices.Contains(s.extra, model))
}

// vendor is what differs between the two APIs.
type vendor struct {
	name     string
	contract *contract.Contract
	op       string
}

var (
	openAI = vendor{name: chatmodel.OpenAI, contract: contract.OpenAI, op: "createChatCompletion"}
	gemini = vendor{name: chatmodel.Gemini, contract: contract.Gemini, op: "generateContent"}
)

// errorBody is v's error body for status.
func (v vendor) errorBody(status int, code, message string) []byte {
	var body any
	if v.name == chatmodel.Gemini {
		if code == "" {
			code = map[int]string{400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}[status]
			if code == "" {
				code = "INTERNAL"
			}
		}
		body = map[string]any{"error": map[string]any{"code": status, "message": message, "status": code}}
	} else {
		typ := map[bool]string{true: "server_error", false: "invalid_request_error"}[status >= 500]
		var c any
		if code != "" {
			c = code
		}
		body = map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": c}}
	}
	data, _ := json.Marshal(body)
	return data
}

// reply writes an answer after checking it against the vendor's contract.
func (s *Server) reply(w http.ResponseWriter, v vendor, op string, status int, body []byte) {
	if problems := v.contract.CheckResponse(op, status, body); len(problems) > 0 {
		s.t.Errorf("chatfake: the %s answer (%d) breaks the %s contract: %s", op, status, v.name, strings.Join(problems, "; "))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/models/"):
		s.lookup(w, r, openAI, strings.TrimPrefix(p, "/v1/models/"))
		return
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1beta/models/"):
		s.lookup(w, r, gemini, strings.TrimPrefix(p, "/v1beta/models/"))
		return
	}
	var (
		v    vendor
		call Call
		err  error
	)
	switch {
	case r.Method == http.MethodPost && p == "/v1/chat/completions":
		v = openAI
		call, err = s.openAI(r, body)
	case r.Method == http.MethodPost && strings.HasPrefix(p, "/v1beta/models/") && strings.HasSuffix(p, ":generateContent"):
		v = gemini
		call, err = s.gemini(r, body)
		call.Model = strings.TrimSuffix(strings.TrimPrefix(p, "/v1beta/models/"), ":generateContent")
	default:
		s.reply(w, openAI, "createChatCompletion", http.StatusNotFound, openAI.errorBody(404, "", "Invalid URL ("+r.Method+" "+p+")"))
		return
	}
	if err != nil {
		s.reply(w, v, v.op, http.StatusBadRequest, v.errorBody(400, "", err.Error()))
		return
	}
	if !s.serves(v.name, call.Model) {
		if v.name == chatmodel.Gemini {
			s.reply(w, v, v.op, http.StatusNotFound, v.errorBody(404, "NOT_FOUND", fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for generateContent.", call.Model)))
		} else {
			s.reply(w, v, v.op, http.StatusNotFound, v.errorBody(404, "model_not_found", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", call.Model)))
		}
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	var reply Reply
	switch {
	case len(s.replies) > 0:
		reply, s.replies = s.replies[0], s.replies[1:]
	case s.Default != nil:
		reply = s.Default(call)
	default:
		reply = Reply{Status: http.StatusInternalServerError, Content: "no reply scripted"}
	}
	s.mu.Unlock()
	for k, vals := range reply.Header {
		w.Header()[k] = vals
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		s.reply(w, v, v.op, reply.Status, v.errorBody(reply.Status, reply.Code, reply.Content))
		return
	}
	var answer any
	if v.name == chatmodel.Gemini {
		answer = map[string]any{"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": reply.Content}}},
			"finishReason": "STOP", "index": 0,
		}}, "modelVersion": call.Model}
	} else {
		answer = map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": 1764374400, "model": call.Model, "choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": reply.Content, "refusal": nil},
			"finish_reason": "stop",
		}}}
	}
	data, _ := json.Marshal(answer)
	s.reply(w, v, v.op, http.StatusOK, data)
}

// lookup answers a model lookup.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request, v vendor, model string) {
	op := map[string]string{chatmodel.OpenAI: "retrieveModel", chatmodel.Gemini: "getModel"}[v.name]
	if why := s.auth(r, v); why != "" {
		status, code := http.StatusUnauthorized, "invalid_api_key"
		if v.name == chatmodel.Gemini {
			status, code = http.StatusBadRequest, "INVALID_ARGUMENT"
		}
		s.reply(w, v, op, status, v.errorBody(status, code, why))
		return
	}
	if !s.serves(v.name, model) {
		code := map[string]string{chatmodel.OpenAI: "model_not_found", chatmodel.Gemini: "NOT_FOUND"}[v.name]
		s.reply(w, v, op, http.StatusNotFound, v.errorBody(404, code, fmt.Sprintf("The model '%s' does not exist", model)))
		return
	}
	var answer any = map[string]any{"id": model, "object": "model", "created": 1764374400, "owned_by": "system"}
	if v.name == chatmodel.Gemini {
		answer = map[string]any{"name": "models/" + model, "version": "001", "displayName": model, "supportedGenerationMethods": []string{"generateContent"}}
	}
	data, _ := json.Marshal(answer)
	s.reply(w, v, op, http.StatusOK, data)
}

// auth checks the key header of v; "" when it is right.
func (s *Server) auth(r *http.Request, v vendor) string {
	switch {
	case s.Key == "":
	case v.name == chatmodel.Gemini && r.Header.Get("x-goog-api-key") != s.Key:
		return "API key not valid. Please pass a valid API key."
	case v.name == chatmodel.OpenAI && r.Header.Get("Authorization") != "Bearer "+s.Key:
		return "Incorrect API key provided."
	}
	return ""
}

// decode checks body against v's contract and decodes it into req.
func decode(v vendor, body []byte, req any) error {
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	if problems := v.contract.CheckRequest(v.op, doc); len(problems) > 0 {
		return fmt.Errorf("invalid request: %s", strings.Join(problems, "; "))
	}
	return json.Unmarshal(body, req)
}

func (s *Server) openAI(r *http.Request, body []byte) (Call, error) {
	if why := s.auth(r, openAI); why != "" {
		return Call{}, fmt.Errorf("%s", why)
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role, Content string
		} `json:"messages"`
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string         `json:"name"`
				Strict bool           `json:"strict"`
				Schema map[string]any `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := decode(openAI, body, &req); err != nil {
		return Call{}, err
	}
	if req.ResponseFormat.Type != "json_schema" || req.ResponseFormat.JSONSchema.Schema == nil {
		return Call{}, fmt.Errorf("want response_format json_schema with a schema")
	}
	c := Call{Provider: "openai", Model: req.Model, Schema: req.ResponseFormat.JSONSchema.Schema}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			c.System = m.Content
		case "user":
			c.User = m.Content
		}
	}
	return c, nil
}

func (s *Server) gemini(r *http.Request, body []byte) (Call, error) {
	if why := s.auth(r, gemini); why != "" {
		return Call{}, fmt.Errorf("%s", why)
	}
	var req struct {
		SystemInstruction struct {
			Parts []struct{ Text string } `json:"parts"`
		} `json:"systemInstruction"`
		Contents []struct {
			Parts []struct{ Text string } `json:"parts"`
		} `json:"contents"`
		GenerationConfig struct {
			ResponseMimeType string         `json:"responseMimeType"`
			ResponseSchema   map[string]any `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	if err := decode(gemini, body, &req); err != nil {
		return Call{}, err
	}
	if req.GenerationConfig.ResponseMimeType != "application/json" || req.GenerationConfig.ResponseSchema == nil {
		return Call{}, fmt.Errorf("want generationConfig with responseMimeType application/json and a responseSchema")
	}
	c := Call{Provider: "gemini", Schema: req.GenerationConfig.ResponseSchema}
	for _, p := range req.SystemInstruction.Parts {
		c.System += p.Text
	}
	for _, p := range req.Contents[0].Parts {
		c.User += p.Text
	}
	return c, nil
}
