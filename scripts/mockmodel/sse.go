package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// sse writes Server-Sent Events, flushing each one. The first error (the
// client went away) sticks and turns later calls into no-ops.
type sse struct {
	w   http.ResponseWriter
	ctx context.Context
	err error
}

func startSSE(w http.ResponseWriter, r *http.Request) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := &sse{w: w, ctx: r.Context()}
	e.flush()
	return e
}

// send writes one event; an empty name gives a data-only event (Gemini).
func (e *sse) send(name string, v any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		e.err = err
		return
	}
	if name != "" {
		_, e.err = fmt.Fprintf(e.w, "event: %s\n", name)
	}
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, "data: %s\n\n", b)
	}
	e.flush()
}

// comment writes an SSE comment, which parsers skip: a keep-alive.
func (e *sse) comment(text string) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, ": %s\n\n", text)
	}
	e.flush()
}

func (e *sse) flush() {
	if e.err == nil {
		e.err = http.NewResponseController(e.w).Flush()
	}
}

// words calls send for each word delta of text, gap apart, as a model
// producing tokens would; last is true for the final one.
func (e *sse) words(text string, gap time.Duration, send func(delta string, last bool)) {
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

func (e *sse) pause(d time.Duration) {
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
