// Package chatfake is a local HTTP fake of the two chat APIs chatmodel
// speaks, for tests: it checks each request the way the providers do
// (path, key header, a JSON schema asked for) and answers with what the
// test scripts — an object, raw text that is not JSON, or a status.
package chatfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Call is one request the fake received.
type Call struct {
	Provider string // "openai" or "gemini"
	System   string
	User     string
	Schema   map[string]any
}

// Reply is one scripted answer: Status (default 200) and either Content
// (the model's text, sent inside the provider's envelope) or, with a
// non-2xx Status, an error body.
type Reply struct {
	Status  int
	Content string
}

// Server is the fake. Replies are served in order; when they run out,
// Default answers (nil: 500).
type Server struct {
	*httptest.Server
	Key     string
	Default func(Call) Reply

	mu      sync.Mutex
	replies []Reply
	calls   []Call
}

// New starts a fake expecting key, closed when t ends.
func New(t testing.TB, key string) *Server {
	s := &Server{Key: key}
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

// Calls returns the requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	var (
		call Call
		err  error
	)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		call, err = s.openAI(r, body)
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1beta/models/") && strings.HasSuffix(r.URL.Path, ":generateContent"):
		call, err = s.gemini(r, body)
	default:
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		return
	}
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error()}})
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
	w.Header().Set("Content-Type", "application/json")
	if reply.Status != 0 && reply.Status != http.StatusOK {
		w.WriteHeader(reply.Status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": reply.Content}})
		return
	}
	if call.Provider == "gemini" {
		_ = json.NewEncoder(w).Encode(map[string]any{"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": reply.Content}}},
			"finishReason": "STOP",
		}}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "choices": []any{map[string]any{
		"index":         0,
		"message":       map[string]any{"role": "assistant", "content": reply.Content, "refusal": nil},
		"finish_reason": "stop",
	}}})
}

func (s *Server) openAI(r *http.Request, body []byte) (Call, error) {
	if s.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.Key {
		return Call{}, fmt.Errorf("bad Authorization header")
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
	if err := json.Unmarshal(body, &req); err != nil {
		return Call{}, fmt.Errorf("body is not JSON: %w", err)
	}
	if req.Model == "" || req.ResponseFormat.Type != "json_schema" || req.ResponseFormat.JSONSchema.Name == "" || req.ResponseFormat.JSONSchema.Schema == nil {
		return Call{}, fmt.Errorf("want model and response_format json_schema with a name and schema")
	}
	c := Call{Provider: "openai", Schema: req.ResponseFormat.JSONSchema.Schema}
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
	if s.Key != "" && r.Header.Get("x-goog-api-key") != s.Key {
		return Call{}, fmt.Errorf("bad x-goog-api-key header")
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
	if err := json.Unmarshal(body, &req); err != nil {
		return Call{}, fmt.Errorf("body is not JSON: %w", err)
	}
	if req.GenerationConfig.ResponseMimeType != "application/json" || req.GenerationConfig.ResponseSchema == nil || len(req.Contents) == 0 {
		return Call{}, fmt.Errorf("want contents and generationConfig with responseMimeType application/json and a responseSchema")
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
