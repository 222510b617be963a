package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// event is one parsed SSE frame; data is decoded into a generic value.
type event struct {
	name string
	data map[string]any
}

func newServer(t *testing.T, scenario string) *httptest.Server {
	t.Helper()
	s := &server{scenario: scenario, think: 400 * time.Millisecond, pingEvery: 50 * time.Millisecond, log: log.New(io.Discard, "", 0)}
	ts := httptest.NewServer(s.routes())
	t.Cleanup(ts.Close)
	return ts
}

// post sends body to path and returns the response, whose body the caller
// reads; cancel ends the request (and a stalled stream).
func post(t *testing.T, ts *httptest.Server, path, body string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: status %d", path, resp.StatusCode)
	}
	return resp, cancel
}

// readEvents parses SSE frames ("event: NAME", "data: JSON", blank line)
// onto a channel, closed when the body ends. A comment frame (": TEXT") is
// an event named ": TEXT" with no data.
func readEvents(t *testing.T, r io.Reader) <-chan event {
	ch := make(chan event, 64) // More than any answer sends: the reader never blocks.
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				ch <- ev
				ev = event{}
			case strings.HasPrefix(line, ": "):
				ev.name = line
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data); err != nil {
					t.Errorf("data is not JSON: %q", line)
				}
			default:
				t.Errorf("not an SSE line: %q", line)
			}
		}
	}()
	return ch
}

func collect(ch <-chan event) []event {
	var evs []event
	for ev := range ch {
		evs = append(evs, ev)
	}
	return evs
}

// get walks a decoded JSON value by object keys and array indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// named checks the event names, that each data's type repeats its name
// (Anthropic and OpenAI frame both), and returns the concatenated text
// deltas read at path.
func named(t *testing.T, evs []event, want []string, deltaName string, path ...any) string {
	t.Helper()
	var names []string
	var text strings.Builder
	for _, ev := range evs {
		names = append(names, ev.name)
		if got := ev.data["type"]; got != ev.name {
			t.Errorf("event %s: data type %v", ev.name, got)
		}
		if ev.name == deltaName {
			s, _ := get(ev.data, path...).(string)
			text.WriteString(s)
		}
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("events:\n got %v\nwant %v", names, want)
	}
	return text.String()
}

func TestAnthropic(t *testing.T) {
	t.Parallel()
	const (
		bash       = `"tools":[{"name":"Bash"}]`
		first      = `"messages":[{"role":"user","content":"Run the shell command: sleep 20"}]`
		withResult = `"messages":[{"role":"user","content":"x"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":""}]}]`
	)
	for _, tc := range []struct {
		name, scenario, body, want string
	}{
		{"A text", "A", `{"model":"m","stream":true,` + bash + `,` + first + `}`, textHello},
		{"B after the tool", "B", `{"model":"m","stream":true,` + bash + `,` + withResult + `}`, textDone},
		{"C without tools (title request)", "C", `{"model":"m","stream":true,` + first + `}`, textHello},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, _ := post(t, newServer(t, tc.scenario), "/v1/messages?beta=true", tc.body)
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			evs := collect(readEvents(t, resp.Body))
			want := []string{"message_start", "content_block_start"}
			for range deltas(tc.want) {
				want = append(want, "content_block_delta")
			}
			want = append(want, "content_block_stop", "message_delta", "message_stop")
			if got := named(t, evs, want, "content_block_delta", "delta", "text"); got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
			if got := get(evs[len(evs)-2].data, "delta", "stop_reason"); got != "end_turn" {
				t.Errorf("stop_reason %v", got)
			}
		})
	}

	t.Run("B tool call", func(t *testing.T) {
		t.Parallel()
		resp, _ := post(t, newServer(t, "B"), "/v1/messages", `{"model":"m","stream":true,`+bash+`,`+first+`}`)
		evs := collect(readEvents(t, resp.Body))
		named(t, evs, []string{"message_start", "content_block_start", "content_block_delta",
			"content_block_stop", "message_delta", "message_stop"}, "")
		if got := get(evs[1].data, "content_block", "name"); got != "Bash" {
			t.Errorf("tool %v", got)
		}
		var input map[string]any
		if err := json.Unmarshal([]byte(get(evs[2].data, "delta", "partial_json").(string)), &input); err != nil {
			t.Fatal(err)
		}
		if input["command"] != "sleep 20" || input["timeout"] != float64(60000) {
			t.Errorf("input %v", input)
		}
		if got := get(evs[4].data, "delta", "stop_reason"); got != "tool_use" {
			t.Errorf("stop_reason %v", got)
		}
	})

	t.Run("B tool call, not streamed", func(t *testing.T) {
		t.Parallel()
		resp, _ := post(t, newServer(t, "B"), "/v1/messages", `{"model":"m",`+bash+`,`+first+`}`)
		var msg map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		if get(msg, "content", 0, "type") != "tool_use" || get(msg, "content", 0, "input", "command") != "sleep 20" ||
			msg["stop_reason"] != "tool_use" {
			t.Errorf("message %v", msg)
		}
	})
}

func TestResponses(t *testing.T) {
	t.Parallel()
	const tools = `"tools":[{"type":"function","name":"exec_command"},{"type":"function","name":"write_stdin"}]`
	for _, tc := range []struct {
		name, scenario, input, want string
	}{
		{"A text", "A", `[{"type":"message"}]`, textHello},
		{"B after the tool", "B", `[{"type":"message"},{"type":"function_call"},{"type":"function_call_output"}]`, textDone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, _ := post(t, newServer(t, tc.scenario), "/v1/responses", `{"model":"m",`+tools+`,"input":`+tc.input+`}`)
			evs := collect(readEvents(t, resp.Body))
			if got := named(t, evs, textEventsOf(tc.want), "response.output_text.delta", "delta"); got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
			if got := get(evs[len(evs)-2].data, "item", "content", 0, "text"); got != tc.want {
				t.Errorf("done item text %v", got)
			}
			if got := get(evs[len(evs)-1].data, "response", "usage", "output_tokens"); got != float64(outputTokens) {
				t.Errorf("usage %v", got)
			}
		})
	}
	t.Run("B tool call", func(t *testing.T) {
		t.Parallel()
		resp, _ := post(t, newServer(t, "B"), "/v1/responses", `{"model":"m",`+tools+`,"input":[{"type":"message"}]}`)
		evs := collect(readEvents(t, resp.Body))
		named(t, evs, []string{"response.created", "response.output_item.added",
			"response.output_item.done", "response.completed"}, "")
		item := get(evs[2].data, "item")
		if get(item, "type") != "function_call" || get(item, "name") != "exec_command" {
			t.Fatalf("item %v", item)
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(get(item, "arguments").(string)), &args); err != nil {
			t.Fatal(err)
		}
		if args["cmd"] != "sleep 20" {
			t.Errorf("arguments %v", args)
		}
	})
}

func TestGemini(t *testing.T) {
	t.Parallel()
	const (
		path  = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
		tools = `"tools":[{"functionDeclarations":[{"name":"read_file"},{"name":"run_shell_command"}]}]`
	)
	// parts returns each chunk's text or function name, and checks that only
	// the last chunk finishes.
	parts := func(t *testing.T, evs []event) []string {
		t.Helper()
		var out []string
		for i, ev := range evs {
			if ev.name != "" {
				t.Errorf("Gemini frames are data-only, got event %q", ev.name)
			}
			part := get(ev.data, "candidates", 0, "content", "parts", 0)
			if name := get(part, "functionCall", "name"); name != nil {
				out = append(out, "call:"+name.(string))
			} else {
				out = append(out, get(part, "text").(string))
			}
			finished := get(ev.data, "candidates", 0, "finishReason") == "STOP"
			if finished != (i == len(evs)-1) {
				t.Errorf("chunk %d: finishReason %v", i, get(ev.data, "candidates", 0, "finishReason"))
			}
		}
		return out
	}
	for _, tc := range []struct {
		name, scenario, body, want string
	}{
		{"A text", "A", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],` + tools + `}`, textHello},
		{"B tool call", "B", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],` + tools + `}`, "call:run_shell_command"},
		{"B after the tool", "B", `{"contents":[{"role":"user","parts":[{"text":"hi"}]},` +
			`{"role":"model","parts":[{"functionCall":{"name":"run_shell_command"}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command"}}]}],` + tools + `}`, textDone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, _ := post(t, newServer(t, tc.scenario), path, tc.body)
			if got := strings.Join(parts(t, collect(readEvents(t, resp.Body))), ""); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStall checks scenario C on every route: the frames up to the one
// "Hello" delta arrive, then nothing, and the stream stays open until the
// client leaves.
func TestStall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, body string
		frames           int   // up to and including the delta
		text             []any // where the last frame holds the delta
	}{
		{"anthropic", "/v1/messages", `{"model":"m","stream":true,"tools":[{"name":"bash"}],"messages":[]}`,
			3, []any{"delta", "text"}},
		{"responses", "/v1/responses", `{"model":"m","tools":[{"name":"exec_command"}],"input":[]}`,
			3, []any{"delta"}},
		{"gemini", "/v1beta/models/g:streamGenerateContent?alt=sse",
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
			1, []any{"candidates", 0, "content", "parts", 0, "text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, cancel := post(t, newServer(t, "C"), tc.path, tc.body)
			ch := readEvents(t, resp.Body)
			var last event
			for i := 0; i < tc.frames; i++ {
				select {
				case last = <-ch:
				case <-time.After(5 * time.Second):
					t.Fatalf("frame %d did not arrive", i)
				}
			}
			if got := get(last.data, tc.text...); got != textStall {
				t.Errorf("last frame before the stall: %v", last.data)
			}
			select {
			case ev, ok := <-ch:
				t.Fatalf("sent after the delta: %v (open %t)", ev, ok)
			case <-time.After(300 * time.Millisecond):
			}
			cancel()
		})
	}
}

// TestKeepAlive checks scenarios T and P on every route: after the
// response's first frame only keep-alives come (Anthropic's ping event, an
// SSE comment elsewhere); with T the answer follows after the think, with
// P they go on until the client leaves.
func TestKeepAlive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, body string
		header           int    // frames before the keep-alives
		ping             string // the keep-alive's name
		text             []any  // where a frame of the answer holds its text
	}{
		{"anthropic", "/v1/messages", `{"model":"m","stream":true,"tools":[{"name":"bash"}],"messages":[]}`,
			1, "ping", []any{"delta", "text"}},
		{"responses", "/v1/responses", `{"model":"m","tools":[{"name":"exec_command"}],"input":[]}`,
			1, ": keep-alive", []any{"delta"}},
		{"gemini", "/v1beta/models/g:streamGenerateContent?alt=sse",
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
			0, ": keep-alive", []any{"candidates", 0, "content", "parts", 0, "text"}},
	} {
		t.Run(tc.name+" T", func(t *testing.T) {
			t.Parallel()
			resp, _ := post(t, newServer(t, "T"), tc.path, tc.body)
			evs := collect(readEvents(t, resp.Body))
			pings, text := 0, ""
			for _, ev := range evs[tc.header:] {
				if ev.name == tc.ping {
					if text != "" {
						t.Errorf("a keep-alive after the answer began")
					}
					pings++
					continue
				}
				s, _ := get(ev.data, tc.text...).(string)
				text += s
			}
			// 400ms of think at one keep-alive per 50ms.
			if pings < 4 || text != textHello {
				t.Errorf("%d keep-alives, then text %q", pings, text)
			}
		})
		t.Run(tc.name+" P", func(t *testing.T) {
			t.Parallel()
			resp, cancel := post(t, newServer(t, "P"), tc.path, tc.body)
			ch := readEvents(t, resp.Body)
			for i := 0; i < tc.header+20; i++ { // 1s of keep-alives, more than T's think
				select {
				case ev := <-ch:
					if i >= tc.header && ev.name != tc.ping {
						t.Fatalf("frame %d is not a keep-alive: %v %v", i, ev.name, ev.data)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("frame %d did not arrive", i)
				}
			}
			cancel()
		})
	}
}

func TestProbeAndUnknown(t *testing.T) {
	t.Parallel()
	ts := newServer(t, "A")
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodHead, "/", http.StatusOK},
		{http.MethodGet, "/v1/models", http.StatusNotFound},
		{http.MethodPost, "/v1beta/models/g:countTokens", http.StatusNotFound},
	} {
		req, err := http.NewRequest(tc.method, ts.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
}

func TestWritePortFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "port")
	if err := writePortFile(path, 4321); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "4321\n" {
		t.Fatalf("port file %q, %v", b, err)
	}
}
