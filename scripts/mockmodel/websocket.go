package main

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// The OpenAI Responses API over a WebSocket, as Codex speaks it to a
// provider with supports_websockets = true: GET /v1/responses upgrades
// (header openai-beta: responses_websockets=2026-02-06), then each
// request is a response.create text message (a warm-up with "generate":
// false first, then the turn, with previous_response_id and only the new
// input), and the answer is the SSE stream's event objects, one per text
// message. The server's keep-alive is a WebSocket ping, which Codex
// answers at once.

// wsRequest is a message from the client.
type wsRequest struct {
	Type               string `json:"type"`
	Generate           *bool  `json:"generate"`
	PreviousResponseID string `json:"previous_response_id"`
	responsesRequest
}

// maxMessage bounds a request: Codex's warm-up carries its whole prompt
// and tools (36 KB measured), past the library's 32 KiB default.
const maxMessage = 4 << 20

// wsPingWait is how long a ping waits for its pong before giving up; the
// client going away ends it sooner.
const wsPingWait = time.Minute

func (s *server) responsesWS(w http.ResponseWriter, r *http.Request) {
	// Compression stays off (the library's default): Codex offers
	// permessage-deflate, and a server may decline it.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		OnPongReceived: func(context.Context, []byte) { s.log.Printf("WS %s: pong", r.URL.Path) },
	})
	if err != nil {
		s.log.Printf("%s -> upgrade failed (%v)", label(r), err)
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(maxMessage)
	s.log.Printf("%s -> 101 (openai-beta: %s)", label(r), r.Header.Get("openai-beta"))

	// One reader for the connection's life: it also reads the pongs, so
	// it never waits on the turn being written.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	msgs := make(chan []byte, 16)
	go func() {
		defer cancel()
		for {
			typ, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			if typ == websocket.MessageText {
				select {
				case msgs <- b:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	e := &stream{
		ctx:   ctx,
		event: func(_ string, data []byte) error { return c.Write(ctx, websocket.MessageText, data) },
		keepAlive: func() error {
			// The pong is read by the reader; a ping never delays the next.
			go func() {
				pctx, stop := context.WithTimeout(ctx, wsPingWait)
				defer stop()
				_ = c.Ping(pctx) // A client gone ends the stream through ctx.
			}()
			return nil
		},
	}
	for {
		select {
		case b := <-msgs:
			s.wsMessage(r.URL.Path, e, b)
			if e.err != nil {
				return
			}
		case <-ctx.Done():
			s.log.Printf("WS %s: closed by the client", r.URL.Path)
			return
		}
	}
}

// wsMessage answers one message: a turn, a warm-up, or nothing for what
// the mock does not know (response.processed).
func (s *server) wsMessage(path string, e *stream, b []byte) {
	var q wsRequest
	if err := json.Unmarshal(b, &q); err != nil {
		s.log.Printf("WS %s: not JSON (%v)", path, err)
		return
	}
	l := "WS " + path + " " + q.Type
	switch {
	case q.Type != "response.create":
		s.log.Printf("%s (%d B): ignored", l, len(b))
	case q.Generate != nil && !*q.Generate:
		s.log.Printf("%s (%d B) generate=false -> warm-up", l, len(b))
		id := newID("resp_mock_")
		resp := obj{"id": id, "object": "response", "status": "in_progress", "model": q.Model, "output": []obj{}}
		e.send("response.created", obj{"type": "response.created", "response": resp})
		resp["status"] = "completed"
		e.send("response.completed", obj{"type": "response.completed", "response": resp})
	default:
		if q.PreviousResponseID != "" {
			l += " after " + q.PreviousResponseID
		}
		t, text := s.plan(l, q.Model, len(q.Tools), q.shellTool(), q.hasToolResult())
		s.respond(l, e, &q.responsesRequest, t, text)
	}
}
