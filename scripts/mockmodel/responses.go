package main

import (
	"encoding/json"
	"net/http"
	"strings"
)

// OpenAI Responses API, as Codex uses it.

type responsesRequest struct {
	Model string `json:"model"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Input []struct {
		Type string `json:"type"`
	} `json:"input"`
}

func (q *responsesRequest) shellTool() string {
	for _, t := range q.Tools {
		if t.Name == "exec_command" { // Codex's unified exec.
			return t.Name
		}
	}
	return ""
}

func (q *responsesRequest) hasToolResult() bool {
	for _, in := range q.Input {
		if strings.HasSuffix(in.Type, "_call_output") {
			return true
		}
	}
	return false
}

func (s *server) responses(w http.ResponseWriter, r *http.Request) {
	var q responsesRequest
	if !s.decode(w, r, &q) {
		return
	}
	tool := q.shellTool()
	t, text := s.plan(label(r), q.Model, len(q.Tools), tool, q.hasToolResult())
	s.respond(label(r), startSSE(w, r), &q, t, text)
}

// respond writes a Responses API answer as t and text say: the same events
// over SSE and over a WebSocket.
func (s *server) respond(label string, e *stream, q *responsesRequest, t turn, text string) {
	tool := q.shellTool()
	id := newID("resp_mock_")
	e.send("response.created", obj{"type": "response.created",
		"response": obj{"id": id, "object": "response", "status": "in_progress", "model": q.Model, "output": []obj{}}})
	if !s.hold(label, e, t, e.ping) || t == turnPings {
		return
	}
	var item obj
	if t == turnTool {
		// Unified exec hands a still-running command back to the model after
		// yield_time_ms; 30 s, its cap, outlasts the sleep.
		args, _ := json.Marshal(obj{"cmd": command, "yield_time_ms": 30000}) // Plain values: cannot fail.
		item = obj{"type": "function_call", "id": newID("fc_mock_"), "call_id": newID("call_mock_"),
			"name": tool, "arguments": string(args), "status": "completed"}
		e.send("response.output_item.added", obj{"type": "response.output_item.added", "output_index": 0,
			"item": obj{"type": "function_call", "id": item["id"], "call_id": item["call_id"],
				"name": tool, "arguments": "", "status": "in_progress"}})
	} else {
		item = obj{"type": "message", "id": newID("msg_mock_"), "role": "assistant", "status": "completed",
			"content": []obj{{"type": "output_text", "text": text, "annotations": []obj{}}}}
		e.send("response.output_item.added", obj{"type": "response.output_item.added", "output_index": 0,
			"item": obj{"type": "message", "id": item["id"], "role": "assistant", "status": "in_progress", "content": []obj{}}})
		e.words(text, s.gap, func(d string, _ bool) {
			e.send("response.output_text.delta", obj{"type": "response.output_text.delta",
				"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": d})
		})
	}
	if t == turnStall {
		s.stall(e.ctx, label)
		return
	}
	e.send("response.output_item.done", obj{"type": "response.output_item.done", "output_index": 0, "item": item})
	e.send("response.completed", obj{"type": "response.completed", "response": obj{
		"id": id, "object": "response", "status": "completed", "model": q.Model, "output": []obj{item},
		"usage": obj{
			"input_tokens": inputTokens, "input_tokens_details": obj{"cached_tokens": 0},
			"output_tokens": outputTokens, "output_tokens_details": obj{"reasoning_tokens": 0},
			"total_tokens": inputTokens + outputTokens,
		},
	}})
}
