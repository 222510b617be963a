package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// A stream writes one response's events, over SSE or a WebSocket. The
// first error (the client went away) sticks and turns later calls into
// no-ops.
type stream struct {
	ctx context.Context
	err error
	// event writes one event: its name ("" for a data-only SSE event,
	// Gemini's) and its JSON.
	event func(name string, data []byte) error
	// keepAlive sends the transport's keep-alive: an SSE comment, which
	// parsers skip, or a WebSocket ping.
	keepAlive func() error
}

func startSSE(w http.ResponseWriter, r *http.Request) *stream {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func(err error) error {
		if err == nil {
			err = http.NewResponseController(w).Flush()
		}
		return err
	}
	e := &stream{
		ctx: r.Context(),
		event: func(name string, data []byte) error {
			if name != "" {
				if _, err := fmt.Fprintf(w, "event: %s\n", name); err != nil {
					return err
				}
			}
			_, err := fmt.Fprintf(w, "data: %s\n\n", data)
			return flush(err)
		},
		keepAlive: func() error {
			_, err := fmt.Fprint(w, ": keep-alive\n\n")
			return flush(err)
		},
	}
	e.err = flush(nil)
	return e
}

// send writes one event; an empty name gives a data-only event (Gemini).
func (e *stream) send(name string, v any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		e.err = err
		return
	}
	e.err = e.event(name, b)
}

// ping sends the transport's keep-alive.
func (e *stream) ping() {
	if e.err == nil {
		e.err = e.keepAlive()
	}
}

// words calls send for each word delta of text, gap apart, as a model
// producing tokens would; last is true for the final one.
func (e *stream) words(text string, gap time.Duration, send func(delta string, last bool)) {
	ds := deltas(text)
	for i, d := range ds {
		if i > 0 {
			e.pause(gap)
		}
		if e.err != nil {
			return
		}
		send(d, i == len(ds)-1)
	}
}

func (e *stream) pause(d time.Duration) {
	if e.err != nil || d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-e.ctx.Done():
		e.err = e.ctx.Err()
	}
}
