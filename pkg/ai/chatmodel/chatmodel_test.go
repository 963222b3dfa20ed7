package chatmodel_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/ai/chatmodel/chatfake"
	"hookline.dev/pkg/ai/vendorapi/contract"
)

type answer struct {
	Title string   `json:"title"`
	Tags  []string `json:"tags"`
}

var schema = map[string]any{
	"type":                 "object",
	"additionalProperties": false,
	"required":             []string{"title", "tags"},
	"properties": map[string]any{
		"title": map[string]any{"type": "string"},
		"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	},
}

func client(t *testing.T, provider string) (*chatmodel.Client, *chatfake.Server) {
	t.Helper()
	fake := chatfake.New(t, "sk-test-123")
	c, err := chatmodel.New(chatmodel.Config{Provider: provider, APIKey: "sk-test-123", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c, fake
}

func ask(c *chatmodel.Client, t *testing.T) (answer, error) {
	var a answer
	err := c.Complete(t.Context(), chatmodel.Request{System: "be brief", User: "a title please", SchemaName: "titles", Schema: schema}, &a)
	return a, err
}

func TestComplete(t *testing.T) {
	for _, p := range []string{chatmodel.OpenAI, chatmodel.Gemini} {
		t.Run(p, func(t *testing.T) {
			c, fake := client(t, p)
			fake.Push(chatfake.Reply{Content: `{"title":"Sourdough in 24 hours","tags":["bread","baking"]}`})
			a, err := ask(c, t)
			if err != nil {
				t.Fatal(err)
			}
			if a.Title != "Sourdough in 24 hours" || len(a.Tags) != 2 {
				t.Fatalf("answer %+v", a)
			}
			calls := fake.Calls()
			if len(calls) != 1 || calls[0].System != "be brief" || calls[0].User != "a title please" {
				t.Fatalf("calls %+v", calls)
			}
			if p == chatmodel.Gemini {
				if calls[0].Schema["type"] != "OBJECT" || calls[0].Schema["additionalProperties"] != nil {
					t.Fatalf("gemini schema not translated: %v", calls[0].Schema)
				}
			} else if calls[0].Schema["additionalProperties"] != false {
				t.Fatalf("openai schema not strict: %v", calls[0].Schema)
			}
			if !strings.HasPrefix(c.Name(), p+":") {
				t.Fatalf("name %q", c.Name())
			}
		})
	}
}

func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply chatfake.Reply
		want  error
	}{
		{"not JSON", chatfake.Reply{Content: "Sure! Here is your title: Sourdough"}, chatmodel.ErrMalformed},
		{"wrong fields", chatfake.Reply{Content: `{"heading":"x","tags":[]}`}, chatmodel.ErrMalformed},
		{"truncated", chatfake.Reply{Content: `{"title":"x","tags":["a"`}, chatmodel.ErrMalformed},
		{"trailing", chatfake.Reply{Content: `{"title":"x","tags":[]} {"title":"y"}`}, chatmodel.ErrMalformed},
		{"quota spent", chatfake.Reply{Status: http.StatusTooManyRequests, Content: "You exceeded your current quota."}, chatmodel.ErrUnavailable},
		{"server error", chatfake.Reply{Status: http.StatusServiceUnavailable, Content: "The server is overloaded."}, chatmodel.ErrUnavailable},
	} {
		for _, p := range []string{chatmodel.OpenAI, chatmodel.Gemini} {
			t.Run(tc.name+"/"+p, func(t *testing.T) {
				c, fake := client(t, p)
				if tc.name == "quota spent" {
					tc.reply.Code = map[string]string{chatmodel.OpenAI: "insufficient_quota", chatmodel.Gemini: "RESOURCE_EXHAUSTED"}[p]
				}
				fake.Push(tc.reply)
				if _, err := ask(c, t); !errors.Is(err, tc.want) {
					t.Fatalf("err %v, want %v", err, tc.want)
				}
				if n := len(fake.Calls()); n != 1 {
					t.Errorf("%d calls, want 1: a spent quota or a 5xx is not retried", n)
				}
			})
		}
	}
}

func TestFencedJSONIsAccepted(t *testing.T) {
	c, fake := client(t, chatmodel.OpenAI)
	fake.Push(chatfake.Reply{Content: "```json\n{\"title\":\"x\",\"tags\":[]}\n```"})
	if a, err := ask(c, t); err != nil || a.Title != "x" {
		t.Fatalf("%+v %v", a, err)
	}
}

func TestBadKeyIsAConfigurationFault(t *testing.T) {
	fake := chatfake.New(t, "right")
	c, err := chatmodel.New(chatmodel.Config{Provider: chatmodel.OpenAI, APIKey: "wrong", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ask(c, t)
	if err == nil || errors.Is(err, chatmodel.ErrUnavailable) || errors.Is(err, chatmodel.ErrMalformed) || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("err %v: want a plain error without the key", err)
	}
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg chatmodel.Config
		ok  bool
	}{
		{chatmodel.Config{Provider: "openai", APIKey: "k"}, true},
		{chatmodel.Config{Provider: "openai"}, false},                                   // OpenAI's own API needs a key
		{chatmodel.Config{Provider: "openai", BaseURL: "http://127.0.0.1:8080"}, true},  // a local LLM server may not
		{chatmodel.Config{Provider: "gemini", BaseURL: "http://127.0.0.1:8080"}, false}, // Gemini always does
		{chatmodel.Config{Provider: "claude", APIKey: "k"}, false},
		{chatmodel.Config{Provider: "openai", APIKey: "k", BaseURL: "ftp://x"}, false},
		{chatmodel.Config{Provider: "openai", APIKey: "k", Model: "Qwen/Qwen2.5-7B-Instruct"}, true}, // vLLM's names
		{chatmodel.Config{Provider: "gemini", APIKey: "k", Model: "a/b"}, false},                     // a path segment
		{chatmodel.Config{Provider: "openai", APIKey: "k", Model: "a b"}, false},
	} {
		_, err := chatmodel.New(tc.cfg)
		if (err == nil) != tc.ok {
			t.Errorf("%+v: err %v", tc.cfg, err)
		}
	}
}

// A rate limit is waited out (the provider's Retry-After) and the
// question asked again.
func TestRateLimitIsRetried(t *testing.T) {
	for _, p := range []string{chatmodel.OpenAI, chatmodel.Gemini} {
		t.Run(p, func(t *testing.T) {
			c, fake := client(t, p)
			code := map[string]string{chatmodel.OpenAI: "rate_limit_exceeded", chatmodel.Gemini: "UNAVAILABLE"}[p]
			fake.Push(chatfake.Reply{Status: http.StatusTooManyRequests, Code: code, Content: "slow down", Header: http.Header{"Retry-After-Ms": {"20"}}},
				chatfake.Reply{Content: `{"title":"x","tags":[]}`})
			if a, err := ask(c, t); err != nil || a.Title != "x" || len(fake.Calls()) != 2 {
				t.Fatalf("%+v %v after %d calls", a, err, len(fake.Calls()))
			}
		})
	}
}

// A model the provider does not know (a retired default, a typo) is
// ErrModelMissing, from a call and from the lookup; a served one is
// found; a base URL written with /v1 works the same.
func TestMissingModel(t *testing.T) {
	for _, p := range []string{chatmodel.OpenAI, chatmodel.Gemini} {
		t.Run(p, func(t *testing.T) {
			fake := chatfake.New(t, "sk-test-123")
			base := fake.URL + map[string]string{chatmodel.OpenAI: "/v1", chatmodel.Gemini: "/v1beta/"}[p]
			old := map[string]string{chatmodel.OpenAI: "gpt-3.5-turbo-0301", chatmodel.Gemini: "gemini-2.0-flash"}[p]
			c, err := chatmodel.New(chatmodel.Config{Provider: p, APIKey: "sk-test-123", BaseURL: base, Model: old})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ask(c, t); !errors.Is(err, chatmodel.ErrModelMissing) {
				t.Fatalf("call: %v, want ErrModelMissing", err)
			}
			if err := c.CheckModel(t.Context()); !errors.Is(err, chatmodel.ErrModelMissing) {
				t.Fatalf("lookup: %v, want ErrModelMissing", err)
			}
			c, err = chatmodel.New(chatmodel.Config{Provider: p, APIKey: "sk-test-123", BaseURL: base})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.CheckModel(t.Context()); err != nil {
				t.Fatalf("lookup of the default %s: %v", c.Model(), err)
			}
			fake.Push(chatfake.Reply{Content: `{"title":"x","tags":[]}`})
			if _, err := ask(c, t); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Every catalogue model, defaults first, is one the vendor's contract
// lists as a chat model and has not shut down.
func TestCataloguesFollowTheVendorContracts(t *testing.T) {
	for p, con := range map[string]*contract.Contract{chatmodel.OpenAI: contract.OpenAI, chatmodel.Gemini: contract.Gemini} {
		cat := chatmodel.Catalogues[p]
		if len(cat.Models) == 0 || cat.Models[0] != cat.Default {
			t.Errorf("%s: default %q is not first of %v", p, cat.Default, cat.Models)
		}
		for _, m := range cat.Models {
			if why := con.CheckModel("chat", m); why != "" {
				t.Errorf("%s: %s", p, why)
			}
		}
	}
}

// One tested configuration for each self-hosted OpenAI-compatible server
// the README documents: the base URL as each one's documentation writes
// it, its own model names (a slash in vLLM's), no key.
func TestSelfHostedServers(t *testing.T) {
	for _, tc := range []struct{ name, base, model string }{
		{"Ollama", "/v1", "llama3.1:8b"},                        // http://localhost:11434/v1
		{"vLLM", "/v1/", "Qwen/Qwen2.5-7B-Instruct"},            // http://localhost:8000/v1
		{"LocalAI", "", "hermes-2-pro-mistral"},                 // http://localhost:8080
		{"llama.cpp server", "/v1", "qwen2.5-7b-instruct.gguf"}, // http://localhost:8080/v1
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := chatfake.New(t, "")
			fake.Serve(tc.model)
			c, err := chatmodel.New(chatmodel.Config{Provider: chatmodel.OpenAI, BaseURL: fake.URL + tc.base, Model: tc.model})
			if err != nil {
				t.Fatal(err)
			}
			fake.Push(chatfake.Reply{Content: `{"title":"x","tags":["a"]}`})
			if a, err := ask(c, t); err != nil || a.Title != "x" {
				t.Fatalf("%+v %v", a, err)
			}
			if calls := fake.Calls(); len(calls) != 1 || calls[0].Model != tc.model {
				t.Fatalf("calls %+v", calls)
			}
		})
	}
}
