package main

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Gemini API (streamGenerateContent with alt=sse), as Gemini CLI uses it.

type geminiRequest struct {
	Contents []struct {
		Parts []struct {
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

func (q *geminiRequest) shellTool() string {
	for _, t := range q.Tools {
		for _, f := range t.FunctionDeclarations {
			if f.Name == "run_shell_command" {
				return f.Name
			}
		}
	}
	return ""
}

func (q *geminiRequest) hasToolResult() bool {
	for _, c := range q.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				return true
			}
		}
	}
	return false
}

// geminiChunk is one streamed GenerateContentResponse; the last one carries
// the finish reason and the usage.
func geminiChunk(part obj, last bool) obj {
	cand := obj{"content": obj{"role": "model", "parts": []obj{part}}, "index": 0}
	c := obj{"candidates": []obj{cand}, "modelVersion": "mock-model"}
	if last {
		cand["finishReason"] = "STOP"
		c["usageMetadata"] = obj{"promptTokenCount": inputTokens, "candidatesTokenCount": outputTokens,
			"totalTokenCount": inputTokens + outputTokens}
	}
	return c
}

func (s *server) gemini(w http.ResponseWriter, r *http.Request) {
	model, method, _ := strings.Cut(r.PathValue("call"), ":")
	if method != "streamGenerateContent" {
		s.notFound(w, r)
		return
	}
	var q geminiRequest
	if !s.decode(w, r, &q) {
		return
	}
	tool := q.shellTool()
	t, text := s.plan(label(r), model, len(q.Tools), tool, q.hasToolResult())

	e := startSSE(w, r)
	if !s.hold(label(r), e, t, e.ping) || t == turnPings {
		return
	}
	if t == turnTool {
		e.send("", geminiChunk(obj{"functionCall": obj{"name": tool,
			"args": obj{"command": command, "description": describe}}}, true))
		return
	}
	e.words(text, s.gap, func(d string, last bool) {
		e.send("", geminiChunk(obj{"text": d}, last && t == turnText))
	})
	if t == turnStall {
		s.stall(r.Context(), label(r))
	}
}
