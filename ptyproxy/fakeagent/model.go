package fakeagent

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The steps that talk to a model server as the real agents do, over their
// transports, and print what the agent prints meanwhile: its init, then,
// once the answer is in, its answer events.

// Connect's envelope (connectrpc.com's protocol): a flags byte, a 4-byte
// big-endian length, the message. The end of a stream is an envelope
// flagged endStream holding JSON.
const (
	envelopeLen = 5
	endStream   = 0x02
)

// What cursor-agent's stream carries, by size: one HTTP/2 DATA frame
// (9 B header) per envelope. A client heartbeat is 16 B on the wire, a
// server heartbeat (an InteractionUpdate holding only a heartbeat) 18 B;
// the request that opens the turn is tens of KB (the prompt, rules and
// context).
const (
	clientBeat  = 2 // message bytes: 9 + 5 + 2 = 16 B on the wire
	ServerBeat  = 4 // message bytes: 9 + 5 + 4 = 18 B on the wire
	requestSize = 20 << 10
)

// Envelope frames msg as one Connect message, flagged as flags says.
func Envelope(flags byte, msg []byte) []byte {
	b := make([]byte, envelopeLen, envelopeLen+len(msg))
	b[0] = flags
	binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
	return append(b, msg...)
}

// connect talks to url as cursor-agent talks to its backend: one Connect
// stream over HTTP/2 without TLS (h2c) carries the whole turn. It prints
// cursor's init, sends the request, then a heartbeat every beat; the
// server's heartbeat-only messages are skipped, the others are the
// answer's text, printed as cursor's assistant and result events when the
// server ends the stream.
func (a *agent) connect(url string, beat time.Duration) error {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	client := &http.Client{Transport: &http.Transport{Protocols: &p}}
	body, w := io.Pipe()
	defer w.Close()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/connect+proto")
	req.Header.Set("Connect-Protocol-Version", "1")
	a.println(`{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/work","session_id":"s-1","model":"Claude 4 Sonnet","permissionMode":"default"}`)
	go func() {
		if _, err := w.Write(Envelope(0, bytes.Repeat([]byte("r"), requestSize))); err != nil {
			return
		}
		for range time.Tick(beat) {
			if _, err := w.Write(Envelope(0, make([]byte, clientBeat))); err != nil {
				return
			}
		}
	}()
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("connect: %s %s", resp.Proto, resp.Status)
	}
	var text strings.Builder
	in := bufio.NewReader(resp.Body)
	for {
		var head [envelopeLen]byte
		if _, err := io.ReadFull(in, head[:]); err != nil {
			return fmt.Errorf("connect: the stream ended without its end: %w", err)
		}
		msg := make([]byte, binary.BigEndian.Uint32(head[1:]))
		if _, err := io.ReadFull(in, msg); err != nil {
			return err
		}
		switch {
		case head[0]&endStream != 0:
			a.answerEvents(text.String(), `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":%s}]},"session_id":"s-1"}`)
			return nil
		case len(msg) > ServerBeat:
			text.Write(msg)
		}
	}
}

// answerEvents prints the assistant event (format, with the text as a JSON
// string) and the result event of an answer.
func (a *agent) answerEvents(text, format string) {
	quoted, _ := json.Marshal(text) // A string: cannot fail.
	a.println(fmt.Sprintf(format, quoted))
	a.println(fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"result":%s,"session_id":"s-1"}`, quoted))
}

// messages posts a streamed Messages API request to url as Claude Code
// does (its 24 tools and system prompt make it tens of KB; the shell tool
// among them), prints Claude's init first, reads the SSE answer (pings
// skipped) and prints it as Claude's assistant and result events.
func (a *agent) messages(url string) error {
	req, _ := json.Marshal(map[string]any{ // Plain values: cannot fail.
		"model": "claude-sonnet-4-5", "stream": true, "max_tokens": 32000,
		"system":   strings.Repeat("You are Claude Code. ", 1500),
		"tools":    []map[string]any{{"name": "Bash", "input_schema": map[string]any{"type": "object"}}},
		"messages": []map[string]any{{"role": "user", "content": "Say hello."}},
	})
	a.println(`{"type":"system","subtype":"init","cwd":"/work","session_id":"s-1","tools":["Bash"],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"ANTHROPIC_API_KEY"}`)
	resp, err := http.Post(url, "application/json", bytes.NewReader(req))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("messages: %s", resp.Status)
	}
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Delta struct {
				Text string `json:"text"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return err
		}
		switch ev.Type {
		case "content_block_delta":
			text.WriteString(ev.Delta.Text)
		case "message_stop":
			a.answerEvents(text.String(), `{"type":"assistant","message":{"model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":%s}]},"session_id":"s-1"}`)
			return nil
		}
	}
	return fmt.Errorf("messages: the stream ended before message_stop: %v", sc.Err())
}
