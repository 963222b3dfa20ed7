package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"hookline.dev/pkg/testkit"
)

// withKey puts an API key on every request of the MCP client.
type withKey struct{ key string }

func (k withKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// progressLog keeps the progress notifications a client received, by token.
type progressLog struct {
	mu  sync.Mutex
	got map[any][]*sdk.ProgressNotificationParams
}

func (p *progressLog) handle(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got[req.Params.ProgressToken] = append(p.got[req.Params.ProgressToken], req.Params)
}

func (p *progressLog) of(token string) []*sdk.ProgressNotificationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.got[token]
}

// mcpConnect opens an MCP session with the gateway's /mcp over Streamable
// HTTP, with the go-sdk's own client.
func (s *stack) mcpConnect(key string, progress *progressLog) (*sdk.ClientSession, error) {
	opts := &sdk.ClientOptions{}
	if progress != nil {
		opts.ProgressNotificationHandler = progress.handle
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "hookline-e2e", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(s.t.Context(), 30*time.Second)
	defer cancel()
	return client.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:   s.base + "/mcp",
		HTTPClient: &http.Client{Transport: withKey{key}},
		MaxRetries: -1,
	}, nil)
}

// callTool calls a tool, carrying a progress token when one is given.
func callTool(t *testing.T, session *sdk.ClientSession, name, token string, args map[string]any) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	if token != "" {
		params.SetProgressToken(token)
	}
	res, err := session.CallTool(t.Context(), params)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var body map[string]any
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &body)
	}
	return res, body
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// An agent's path through the gateway's MCP server, with the go-sdk's
// client over Streamable HTTP: a wrong key is refused; the tools are
// listed; generating a thumbnail charges 1 credit like the API; an API
// error is a tool error with the envelope; a clip project is prepared and a
// render runs to completion while the client receives progress
// notifications, and the MP4 plays.
func TestMCPThroughTheGateway(t *testing.T) {
	s := startStack(t)
	var slow atomic.Int64
	media := faceTalk(t, &slow)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)

	// A wrong key: the client cannot even initialise, and the gateway's
	// answer is the envelope (checked against the OpenAPI document).
	if session, err := s.mcpConnect("hk_live_"+strings.Repeat("x", 43), nil); err == nil {
		_ = session.Close()
		t.Fatal("a wrong key initialised an MCP session")
	}
	initialize := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "curl", "version": "1"}}}
	if st, body := s.do("POST", "/mcp", "hk_live_"+strings.Repeat("y", 43), initialize); st != 401 || body["code"] != "unauthorized" {
		t.Fatalf("wrong key: %d %v", st, body)
	}

	progress := &progressLog{got: map[any][]*sdk.ProgressNotificationParams{}}
	session, err := s.mcpConnect(key, progress)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = session.Close() }()
	if info := session.InitializeResult(); info == nil || info.ServerInfo.Name != "hookline" {
		t.Fatalf("initialize: %+v", info)
	}
	tools, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
	}
	if len(tools.Tools) < 20 || !names["generate_thumbnail"] || !names["analyze_video"] || !names["create_face"] || !names["start_render"] {
		t.Fatalf("%d tools: %v", len(tools.Tools), names)
	}

	// generate_thumbnail costs what POST /thumbnails costs: 1 credit.
	res, body := callTool(t, session, "generate_thumbnail", "", map[string]any{"prompt": "I tested the 5 cheapest gaming laptops"})
	gen, _ := body["data"].(map[string]any)
	if res.IsError || gen["kind"] != "generated" || gen["width"] != float64(1280) {
		t.Fatalf("generate_thumbnail: %s", resultText(res))
	}
	img, _ := fetchImage(t, gen["imageUrl"].(string))
	wantSize(t, img, 1280, 720)
	s.waitTotal(key, 499)
	if got := s.must(200, "GET", "/api/v1/thumbnails/"+gen["id"].(string), key, nil); got["imageUrl"] != gen["imageUrl"] {
		t.Fatalf("the API does not know the MCP thumbnail: %v", got)
	}

	// An API error is a tool error that carries the envelope.
	res, body = callTool(t, session, "get_thumbnail", "", map[string]any{"id": "0b8a5c1e-1f1e-4c71-9a1e-3d2c9a0e1f00"})
	if !res.IsError || body["code"] != "not_found" || body["status"] != float64(404) || !strings.Contains(resultText(res), "not_found") {
		t.Fatalf("unknown thumbnail: error=%v %v %q", res.IsError, body, resultText(res))
	}
	res, body = callTool(t, session, "generate_thumbnail", "", map[string]any{"prompt": ""})
	if !res.IsError || body["code"] != "invalid_request" || !strings.Contains(resultText(res), "prompt") {
		t.Fatalf("empty prompt: error=%v %v %q", res.IsError, body, resultText(res))
	}
	s.waitTotal(key, 499)

	// A clip project, waited for until prepared.
	res, body = callTool(t, session, "create_clip_project", "prepare", map[string]any{"video_site_url": media.URL + "/talk.mp4"})
	project, _ := body["data"].(map[string]any)
	if res.IsError || project["downloadStatus"] != "ready" {
		t.Fatalf("create_clip_project: %s", resultText(res))
	}
	clip := project["clips"].([]any)[0].(map[string]any)

	// A render, waited for with progress notifications until it ends.
	res, body = callTool(t, session, "start_render", "render", map[string]any{"projectId": project["id"], "clip_id": clip["id"], "subtitle_style": "bold"})
	if res.IsError {
		t.Fatalf("start_render: %s", resultText(res))
	}
	render := body["data"].(map[string]any)["renders"].([]any)[0].(map[string]any)
	waited := render["status"] == "completed" || render["status"] == "failed"
	if !waited {
		// Past the gateway's wait the tool returns the render as it stands;
		// the agent polls on.
		testkit.Eventually(t, 3*time.Minute, "render completed", func() bool {
			_, b := callTool(t, session, "get_render", "", map[string]any{"renderId": render["id"]})
			render, _ = b["data"].(map[string]any)
			return render["status"] == "completed" || render["status"] == "failed"
		})
	}
	if render["status"] != "completed" || render["outputUrl"] == nil {
		t.Fatalf("render: %v", render)
	}
	if waited {
		// The client handles notifications concurrently with the result,
		// so the last one may land just after it.
		testkit.Eventually(t, 5*time.Second, "the render's progress at 100", func() bool {
			notes := progress.of("render")
			return len(notes) > 0 && notes[len(notes)-1].Progress == 100
		})
	}
	notes := progress.of("render")
	if len(notes) < 2 {
		t.Fatalf("%d progress notifications for the render", len(notes))
	}
	for i, n := range notes {
		if n.Total != 100 || n.Progress < 0 || n.Progress > 100 || i > 0 && n.Progress <= notes[i-1].Progress {
			t.Fatalf("progress %d: %+v after %+v", i, n, notes[max(i-1, 0)])
		}
	}
	t.Logf("%d progress notifications for the render: %.0f … %.0f (%s)", len(notes), notes[0].Progress, notes[len(notes)-1].Progress, notes[len(notes)-1].Message)
	if len(progress.of("prepare")) == 0 {
		t.Error("no progress notifications for the project's preparation")
	}
	w, h, vc, ac, dur := probe(t, fetch(t, render["outputUrl"].(string), t.TempDir()))
	if w != 720 || h != 1280 || vc != "h264" || ac != "aac" || dur < 1 {
		t.Fatalf("render output %dx%d %s/%s %.1f s", w, h, vc, ac, dur)
	}
	// 1 credit for the thumbnail, 2 for the render.
	s.waitTotal(key, 497)

	// The same tools over stdio: an agent that starts `hookline mcp` as its
	// server, with the key in its environment.
	client := sdk.NewClient(&sdk.Implementation{Name: "hookline-e2e-stdio", Version: "1"}, nil)
	stdio, err := client.Connect(t.Context(), &sdk.CommandTransport{Command: s.cliCommand()(key, "mcp")}, nil)
	if err != nil {
		t.Fatalf("hookline mcp: %v", err)
	}
	defer func() { _ = stdio.Close() }()
	over, err := stdio.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("hookline mcp: list tools: %v", err)
	}
	if len(over.Tools) != len(tools.Tools) {
		t.Fatalf("hookline mcp lists %d tools, the gateway %d", len(over.Tools), len(tools.Tools))
	}
	res, credits := callTool(t, stdio, "get_credits", "", map[string]any{})
	if data, _ := credits["data"].(map[string]any); res.IsError || data["credits"] == nil {
		t.Fatalf("get_credits over stdio: %s %v", resultText(res), credits)
	}
}
