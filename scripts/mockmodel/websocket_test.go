package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsClient is a Codex-like client of the Responses API over a WebSocket:
// it counts the server's pings (answered by the library, as Codex answers
// them) and declines compression.
type wsClient struct {
	t     *testing.T
	c     *websocket.Conn
	ctx   context.Context
	pings atomic.Int32
}

func dialWS(t *testing.T, scenario string) *wsClient {
	t.Helper()
	ts := newServer(t, scenario)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	w := &wsClient{t: t, ctx: ctx}
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v1/responses", &websocket.DialOptions{
		HTTPHeader:      http.Header{"openai-beta": {"responses_websockets=2026-02-06"}},
		CompressionMode: websocket.CompressionContextTakeover, // offered, as Codex does
		OnPingReceived:  func(context.Context, []byte) bool { w.pings.Add(1); return true },
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Extensions") != "" {
		t.Errorf("upgrade: status %d, extensions %q", resp.StatusCode, resp.Header.Get("Sec-WebSocket-Extensions"))
	}
	t.Cleanup(func() { c.CloseNow() })
	w.c = c
	return w
}

// create sends a response.create message.
func (w *wsClient) create(fields string) {
	w.t.Helper()
	msg := `{"type":"response.create","model":"m","tools":[{"type":"function","name":"exec_command"}],` + fields + `}`
	if err := w.c.Write(w.ctx, websocket.MessageText, []byte(msg)); err != nil {
		w.t.Fatal(err)
	}
}

// events reads text messages up to and including response.completed, or
// n of them; each is one event object.
func (w *wsClient) events(n int) []event {
	w.t.Helper()
	var evs []event
	for len(evs) < n {
		typ, b, err := w.c.Read(w.ctx)
		if err != nil {
			w.t.Fatalf("after %d events: %v", len(evs), err)
		}
		var ev event
		if typ != websocket.MessageText || json.Unmarshal(b, &ev.data) != nil {
			w.t.Fatalf("not a JSON text message: %q", b)
		}
		ev.name, _ = ev.data["type"].(string)
		evs = append(evs, ev)
		if ev.name == "response.completed" {
			break
		}
	}
	return evs
}

// TestResponsesWebSocket: as Codex speaks it, a warm-up (generate false)
// is answered with an empty response, then the turn, on the same
// connection, with the SSE stream's events, one per text message.
func TestResponsesWebSocket(t *testing.T) {
	t.Parallel()
	textEvents := textEventsOf(textHello)

	t.Run("A after a warm-up", func(t *testing.T) {
		t.Parallel()
		w := dialWS(t, "A")
		w.create(`"generate":false,"input":[{"type":"message"}]`)
		warm := w.events(10)
		named(t, warm, []string{"response.created", "response.completed"}, "")
		id := get(warm[1].data, "response", "id").(string)
		w.create(`"previous_response_id":"` + id + `","input":[{"type":"message"}]`)
		evs := w.events(100)
		if got := named(t, evs, textEvents, "response.output_text.delta", "delta"); got != textHello {
			t.Errorf("text %q", got)
		}
		if got := get(evs[len(evs)-1].data, "response", "usage", "output_tokens"); got != float64(outputTokens) {
			t.Errorf("usage %v", got)
		}
	})
	t.Run("B tool call, then the answer", func(t *testing.T) {
		t.Parallel()
		w := dialWS(t, "B")
		w.create(`"input":[{"type":"message"}]`)
		evs := w.events(10)
		if item := get(evs[2].data, "item"); get(item, "type") != "function_call" || get(item, "name") != "exec_command" {
			t.Fatalf("item %v", item)
		}
		w.create(`"previous_response_id":"r","input":[{"type":"function_call_output"}]`)
		if got := named(t, w.events(100), textEventsOf(textDone), "response.output_text.delta", "delta"); got != textDone {
			t.Errorf("text %q", got)
		}
	})
	t.Run("T pings, then the answer", func(t *testing.T) {
		t.Parallel()
		w := dialWS(t, "T")
		w.create(`"input":[{"type":"message"}]`)
		evs := w.events(100)
		// 400ms of think at one ping per 50ms; no message but pings meanwhile.
		if p := w.pings.Load(); p < 4 || len(evs) != len(textEvents) {
			t.Errorf("%d pings, then %d events", p, len(evs))
		}
	})
	t.Run("P pings until the client leaves", func(t *testing.T) {
		t.Parallel()
		w := dialWS(t, "P")
		w.create(`"input":[{"type":"message"}]`)
		if evs := w.events(1); evs[0].name != "response.created" {
			t.Fatalf("first event %v", evs[0].name)
		}
		// The library answers pings only while a read is under way.
		ctx, cancel := context.WithTimeout(w.ctx, time.Second)
		defer cancel()
		if _, b, err := w.c.Read(ctx); err == nil {
			t.Fatalf("a message among the pings: %s", b)
		}
		if p := w.pings.Load(); p < 10 {
			t.Errorf("%d pings in 1s, want one per 50ms", p)
		}
	})
}

// textEventsOf is a Responses API text answer's events.
func textEventsOf(text string) []string {
	want := []string{"response.created", "response.output_item.added"}
	for range deltas(text) {
		want = append(want, "response.output_text.delta")
	}
	return append(want, "response.output_item.done", "response.completed")
}

// TestProductsDoNotLinkWebSocket: the WebSocket library is the mock
// model's alone; the wrapper and its MCP server must not link it.
func TestProductsDoNotLinkWebSocket(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "cursor-wrap", "cursor-wrap/mcpserver/cmd/cursor-wrap-mcp").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "github.com/coder/websocket") {
		t.Error("a product binary links github.com/coder/websocket")
	}
}
