package mcpserver

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxFrame bounds one line from the client. The SDK's transport ends the
// session on any frame it cannot read, and would buffer 16 MiB of one line
// first. The largest thing a client sends is a prompt, and a prompt
// becomes one argument of the agent, which Linux caps at 128 KiB
// (MAX_ARG_STRLEN); JSON escaping makes that at most 768 KiB on the wire.
// 4 MiB leaves room for what may come by stdin later, and bounds what a
// hostile line costs: the rest of a longer line is read and dropped, never
// kept.
const maxFrame = 4 << 20

// JSON-RPC error codes for frames the server refuses.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// A frameReader stands in front of the SDK's transport and passes on only
// frames the SDK can read: one JSON-RPC message (or a batch, where the
// negotiated protocol has them) per line. A bad frame gets a JSON-RPC
// error response, written through the same lock as the SDK's frames, and
// the session and its running calls go on.
type frameReader struct {
	in      io.ReadCloser
	src     *bufio.Reader
	out     *frameWriter
	console *slog.Logger
	buf     []byte // a frame passed on, not yet read by the SDK
	// initialized is set by the client's initialize call, and version
	// is the protocol it asked for: they say whether batches are legal.
	initialized bool
	version     string
}

func newFrameReader(in io.ReadCloser, out *frameWriter, console *slog.Logger) *frameReader {
	return &frameReader{in: in, src: bufio.NewReaderSize(in, 64<<10), out: out, console: console}
}

// Read gives the SDK the next good frame, newline-terminated.
func (f *frameReader) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		line, tooLong, err := f.line()
		switch {
		case tooLong:
			f.refuse(nil, codeInvalidRequest, fmt.Sprintf("Invalid request: a frame of more than %d bytes", maxFrame), maxFrame)
		case len(line) > 0:
			f.buf = f.check(line)
		}
		if len(f.buf) == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

func (f *frameReader) Close() error { return f.in.Close() }

// line reads the next line without its end and surrounding space. A line
// longer than maxFrame is read to its end and dropped.
func (f *frameReader) line() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := f.src.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxFrame+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(line), tooLong, err
	}
}

// check returns the frame to pass on for a line, or nil after answering
// a bad one.
func (f *frameReader) check(line []byte) []byte {
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		f.refuse(nil, codeParseError, "Parse error: "+err.Error(), len(line))
		return nil
	}
	if line[0] == '[' {
		if err := f.checkBatch(line); err != nil {
			f.refuse(nil, codeInvalidRequest, "Invalid request: "+err.Error(), len(line))
			return nil
		}
	} else {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			f.refuse(idOf(line), codeInvalidRequest, "Invalid request: "+err.Error(), len(line))
			return nil
		}
		f.note(msg)
	}
	return append(line, '\n')
}

// checkBatch refuses what the SDK would end the session for: a batch in a
// protocol without them, an empty one, a bad message in it, or a request
// id twice.
func (f *frameReader) checkBatch(line []byte) error {
	if !f.batches() {
		return fmt.Errorf("JSON-RPC batches are not part of MCP %s", cmp.Or(f.version, "before initialize"))
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		return err
	}
	if len(raws) == 0 {
		return errors.New("an empty batch")
	}
	var ids []any
	for i, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return fmt.Errorf("batch message %d: %v", i, err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if slices.Contains(ids, req.ID.Raw()) {
				return fmt.Errorf("batch message %d: request id %v twice", i, req.ID.Raw())
			}
			ids = append(ids, req.ID.Raw())
		}
	}
	return nil
}

// note keeps the protocol version the client asks for in its first
// initialize call. The key must be spelled exactly: the SDK reads it so.
func (f *frameReader) note(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() || req.Method != "initialize" || f.initialized {
		return
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(req.Params, &params) != nil {
		return
	}
	f.initialized = true
	_ = json.Unmarshal(params["protocolVersion"], &f.version) // Not a string: no version, no batches.
}

// batches reports whether the SDK takes a batch now. It does before
// initialize, and then only in the protocols before 2025-06-18, which it
// negotiates when the client asks for one of them. Batches are refused
// before initialize too: MCP has no use for them there, and a refusal is
// the safe side of any doubt.
func (f *frameReader) batches() bool {
	return f.initialized && slices.Contains(mcp.SupportedProtocolVersions(), f.version) && f.version < "2025-06-18"
}

// idOf returns the id of a message that is not valid, when it has one a
// response can carry (a string or a number), else nil.
func idOf(line []byte) any {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	switch m.ID.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// refuse answers a bad frame with a JSON-RPC error.
// The frame itself is not logged: it may hold a secret of the caller's.
func (f *frameReader) refuse(id any, code int, msg string, size int) {
	f.console.Warn("mcp: refused a malformed frame from the client", "error", msg, "bytes", size)
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   any    `json:"error"`
	}{"2.0", id, struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	_, _ = f.out.Write(append(b, '\n')) // A client gone shows on the next read.
}

// A frameWriter serializes writes to the client: the SDK writes each frame
// in one Write, and so does the frameReader.
type frameWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (w *frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Close does not wait for a write in progress: it is what unblocks one.
func (w *frameWriter) Close() error { return w.w.Close() }
