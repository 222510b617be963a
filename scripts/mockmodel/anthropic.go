package main

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Anthropic Messages API, as Claude Code and opencode use it.

type anthropicRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Content json.RawMessage `json:"content"` // a string or a list of blocks
	} `json:"messages"`
}

func (q *anthropicRequest) shellTool() string {
	for _, t := range q.Tools {
		if strings.EqualFold(t.Name, "bash") { // Claude Code: Bash; opencode: bash.
			return t.Name
		}
	}
	return ""
}

func (q *anthropicRequest) hasToolResult() bool {
	for _, m := range q.Messages {
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // Plain string content.
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				return true
			}
		}
	}
	return false
}

// shellInput is the Bash tool input Claude Code and opencode both accept.
func shellInput() obj {
	return obj{"command": command, "description": describe, "timeout": timeoutMS}
}

func (s *server) anthropic(w http.ResponseWriter, r *http.Request) {
	var q anthropicRequest
	if !s.decode(w, r, &q) {
		return
	}
	tool := q.shellTool()
	t, text := s.plan(label(r), q.Model, len(q.Tools), tool, q.hasToolResult())
	w.Header().Set("request-id", newID("req_mock_"))

	block, stop := obj{"type": "text", "text": text}, "end_turn"
	if t == turnTool {
		block = obj{"type": "tool_use", "id": newID("toolu_mock_"), "name": tool, "input": shellInput()}
		stop = "tool_use"
	}
	msg := obj{
		"id": newID("msg_mock_"), "type": "message", "role": "assistant", "model": q.Model,
		"content": []obj{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": inputTokens, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}

	if !q.Stream { // Claude Code's fallback after a stream times out.
		if t == turnStall || t == turnPings {
			s.stall(r.Context(), label(r)) // Not even headers: the whole answer would be the delta.
			return
		}
		msg["content"] = []obj{block}
		msg["stop_reason"] = stop
		msg["usage"].(obj)["output_tokens"] = outputTokens
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg) // Best effort: the client may be gone.
		return
	}

	e := startSSE(w, r)
	e.send("message_start", obj{"type": "message_start", "message": msg})
	if !s.hold(label(r), e, t, func() { e.send("ping", obj{"type": "ping"}) }) || t == turnPings {
		return
	}
	if t == turnTool {
		input, _ := json.Marshal(shellInput()) // Plain values: cannot fail.
		e.send("content_block_start", obj{"type": "content_block_start", "index": 0,
			"content_block": obj{"type": "tool_use", "id": block["id"], "name": tool, "input": obj{}}})
		e.send("content_block_delta", obj{"type": "content_block_delta", "index": 0,
			"delta": obj{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		e.send("content_block_start", obj{"type": "content_block_start", "index": 0,
			"content_block": obj{"type": "text", "text": ""}})
		e.words(text, s.gap, func(d string, _ bool) {
			e.send("content_block_delta", obj{"type": "content_block_delta", "index": 0,
				"delta": obj{"type": "text_delta", "text": d}})
		})
	}
	if t == turnStall {
		s.stall(r.Context(), label(r))
		return
	}
	e.send("content_block_stop", obj{"type": "content_block_stop", "index": 0})
	e.send("message_delta", obj{"type": "message_delta",
		"delta": obj{"stop_reason": stop, "stop_sequence": nil}, "usage": obj{"output_tokens": outputTokens}})
	e.send("message_stop", obj{"type": "message_stop"})
}
