package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy/redact"
)

// What the server sends a client is built here, and only here, from text a
// Redactor masked: the MCP SDK takes plain strings, so these constructors
// are the one way to its types that carry text to the client, and
// TestSentOnlyMasked keeps every other function from building one.

// sentResult is a tool's result: its texts, then its structured content.
func sentResult(isError bool, structured redact.Masked, texts ...redact.Masked) *mcp.CallToolResult {
	content := make([]mcp.Content, len(texts))
	for i, t := range texts {
		content[i] = &mcp.TextContent{Text: t.String()}
	}
	return &mcp.CallToolResult{IsError: isError, Content: content, StructuredContent: json.RawMessage(structured.Bytes())}
}

// sentProgress is a progress notification, its message masked.
func sentProgress(token any, message redact.Masked, progress float64) *mcp.ProgressNotificationParams {
	return &mcp.ProgressNotificationParams{ProgressToken: token, Message: message.String(), Progress: progress}
}

// sentWarning is a warning logged to the client, its data masked JSON.
func sentWarning(data redact.Masked) *mcp.LoggingMessageParams {
	return &mcp.LoggingMessageParams{Level: "warning", Logger: "cursor-wrap", Data: json.RawMessage(data.Bytes())}
}

// seal encodes v for the client with secrets masked, as a session log
// masks them. HTML characters stay as they are, so that a secret holding
// one is still found.
func seal(secrets *redact.Redactor, v any) redact.Masked {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("mcpserver: encoding %T: %v", v, err)) // The types are ours: a bug.
	}
	return secrets.Mask(bytes.TrimSpace(b.Bytes()))
}
