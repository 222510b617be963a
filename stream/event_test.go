package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func parseString(s string) Event {
	return Parse(Line{Text: []byte(s), Len: int64(len(s)), Newline: true})
}

func TestParseCursorEvents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		line string
		want Event
	}{
		{
			name: "init",
			line: `{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"b7a9","model":"Auto","permissionMode":"default"}`,
			want: Event{Type: "system", Subtype: "init", SessionID: "b7a9", Model: ModelOpens},
		},
		{
			name: "thinking delta",
			line: `{"type":"thinking","subtype":"delta","text":"The","session_id":"b7a9","timestamp_ms":1789996802214}`,
			want: Event{Type: "thinking", Subtype: "delta", AgentTS: 1789996802214},
		},
		{
			name: "shell started with newline call id",
			line: `{"type":"tool_call","subtype":"started","call_id":"call_MZ\nfc_05","tool_call":{"shellToolCall":{"args":{"command":"sleep 5","workingDirectory":"","timeout":30000,"toolCallId":"call_MZ\nfc_05","hardTimeout":86400000}},"toolCallId":"call_MZ\nfc_05","startedAtMs":"1"},"model_call_id":"m-0","session_id":"s","timestamp_ms":5}`,
			want: Event{Type: "tool_call", Subtype: "started", Model: ModelCloses, CallID: "call_MZ\nfc_05", AgentTS: 5,
				Started: []Call{{ID: "call_MZ\nfc_05", Kind: "shellToolCall", Command: "sleep 5", Timeout: 30 * time.Second}}},
		},
		{
			name: "completed without args",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"readToolCall":{"result":{"error":{"errorMessage":"File not found"}}}},"session_id":"s","timestamp_ms":7}`,
			want: Event{Type: "tool_call", Subtype: "completed", Model: ModelOpens, CallID: "c1", AgentTS: 7, Ended: []string{"c1"}},
		},
		{
			name: "call id from tool_call.toolCallId",
			line: `{"type":"tool_call","subtype":"started","tool_call":{"toolCallId":"tc9","readToolCall":{"args":{"path":"go.mod"}}}}`,
			want: Event{Type: "tool_call", Subtype: "started", Model: ModelCloses, CallID: "tc9", Started: []Call{{ID: "tc9", Kind: "readToolCall", Command: "go.mod"}}},
		},
		{
			name: "call id from args.toolCallId",
			line: `{"type":"tool_call","subtype":"started","tool_call":{"fooToolCall":{"args":{"toolCallId":"a7","timeout":0}}}}`,
			want: Event{Type: "tool_call", Subtype: "started", Model: ModelCloses, CallID: "a7", Started: []Call{{ID: "a7", Kind: "fooToolCall"}}},
		},
		{
			name: "payload-wrapped shape",
			line: `{"type":"tool_call","subtype":"started","payload":{"toolCall":{"id":"tool-123","shellToolCall":{"args":{"command":"ls"}}}}}`,
			want: Event{Type: "tool_call", Subtype: "started", Model: ModelCloses, CallID: "tool-123", Started: []Call{{ID: "tool-123", Kind: "shellToolCall", Command: "ls"}}},
		},
		{
			name: "command preferred over path",
			line: `{"type":"tool_call","subtype":"started","call_id":"x","tool_call":{"shellToolCall":{"args":{"path":"/p","command":"make","timeout":1500.5}}}}`,
			want: Event{Type: "tool_call", Subtype: "started", Model: ModelCloses, CallID: "x", Started: []Call{{ID: "x", Kind: "shellToolCall", Command: "make", Timeout: 1500500 * time.Microsecond}}},
		},
		{
			name: "result",
			line: `{"type":"result","subtype":"success","duration_ms":1,"is_error":false,"result":"done","session_id":"s1","request_id":"r"}`,
			want: Event{Type: "result", Model: ModelCloses, Subtype: "success", SessionID: "s1", Terminal: true, Answer: "done"},
		},
		{
			name: "unknown type",
			line: `{"type":"connection","subtype":"reconnecting","attempt":1,"timestamp_ms":3}`,
			want: Event{Type: "connection", Subtype: "reconnecting", AgentTS: 3},
		},
		{name: "plain text", line: "T: not JSON", want: Event{NotJSON: true}},
		{name: "plain text saying the plan lacks the model", line: "T: Named models unavailable", want: Event{NotJSON: true,
			Error: &AgentError{Kind: Quota, Message: "this Cursor plan cannot use the named model: run with --model auto, or upgrade the plan", Match: "Named models unavailable"}}},
		{
			name: "result of a failed run",
			line: `{"type":"result","subtype":"error","duration_ms":9,"is_error":true,"result":"Error: Authentication required. Please run 'agent login' first","session_id":"s1"}`,
			want: Event{Type: "result", Model: ModelCloses, Subtype: "error", SessionID: "s1", Terminal: true, Failed: true,
				Error: &AgentError{Kind: Auth, Message: "cursor-agent is not logged in: run `cursor-agent login`, or set CURSOR_API_KEY", Match: "Authentication required"}},
		},
		{
			name: "an answer about rate limits is an answer",
			line: `{"type":"result","subtype":"success","is_error":false,"result":"On HTTP 429 or resource_exhausted, back off: you've hit your usage limit.","session_id":"s1"}`,
			want: Event{Type: "result", Model: ModelCloses, Subtype: "success", SessionID: "s1", Terminal: true, Answer: "On HTTP 429 or resource_exhausted, back off: you've hit your usage limit."},
		},
		{name: "terminal reset", line: "\x1b[?25h\x1b7\x1b[r\x1b8", want: Event{NotJSON: true}},
		{name: "array", line: `[1,2]`, want: Event{NotJSON: true}},
		{name: "trailing garbage", line: `{"type":"result"} x`, want: Event{NotJSON: true}},
		{name: "broken object", line: `{"type":"tool_call","subtype":"started","call_id":"x" "tool_call":{}}`, want: Event{NotJSON: true}},
		{name: "crlf", line: "{\"type\":\"user\"}\r", want: Event{Type: "user", Model: ModelOpens}},
		{name: "empty", line: "", want: Event{NotJSON: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := parseString(tc.line)
			if !equalEvent(got, tc.want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tc.line, got, tc.want)
			}
		})
	}
}

func equalEvent(a, b Event) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// TestParseTruncated checks that a completed event whose tool result was
// cut by the splitter still closes its call.
func TestParseTruncated(t *testing.T) {
	t.Parallel()
	line := `{"type":"tool_call","subtype":"completed","call_id":"big","tool_call":{"readToolCall":{"result":{"success":{"content":"` + strings.Repeat("x", 5000) + `"}}}},"timestamp_ms":9}`
	ev := Parse(Line{Text: []byte(line[:1000]), Len: int64(len(line)), Newline: true})
	want := Event{Type: "tool_call", Subtype: "completed", Model: ModelOpens, CallID: "big", Ended: []string{"big"}, Truncated: true}
	if !equalEvent(ev, want) {
		t.Errorf("got %+v\nwant %+v", ev, want)
	}
	cut := Parse(Line{Text: []byte("T: not json"), Len: 5000, Newline: true})
	if !cut.NotJSON || !cut.Truncated {
		t.Errorf("truncated text line: %+v", cut)
	}
}

func TestLabel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, want string
	}{
		{`{"type":"tool_call","subtype":"started","call_id":"a"}`, "tool_call/started"},
		{`{"type":"assistant","message":{}}`, "assistant"},
		{`T: not json`, "text"},
	} {
		if got := Parse(Line{Text: []byte(tc.line), Len: int64(len(tc.line)), Newline: true}).Label(); got != tc.want {
			t.Errorf("Label of %s = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestTranscriptsPair walks the sample transcripts: every started call must
// be closed by a completed event with a byte-identical id, and the session
// id and result must be found.
func TestTranscriptsPair(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			open := map[string]bool{}
			var session string
			var started, ended, notJSON, results int
			NewSplitter(DefaultKeep, func(l Line) {
				ev := Parse(l)
				if ev.NotJSON {
					notJSON++
				}
				if ev.SessionID != "" {
					session = ev.SessionID
				}
				if ev.Terminal {
					results++
				}
				for _, c := range ev.Started {
					started++
					open[c.ID] = true
				}
				for _, id := range ev.Ended {
					ended++
					if !open[id] {
						t.Errorf("completed %q was never started", id)
					}
					delete(open, id)
				}
			}).Write(data)
			if len(open) > 0 || started == 0 || started != ended {
				t.Errorf("started %d ended %d, left open %v", started, ended, open)
			}
			if session == "" || results != 1 {
				t.Errorf("session %q, results %d", session, results)
			}
			if wantNotJSON := bytes.Count(data, []byte("\nT: ")) + boolInt(bytes.HasPrefix(data, []byte("T: "))); notJSON != wantNotJSON {
				t.Errorf("%d non-JSON lines, want %d", notJSON, wantNotJSON)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzParse compares the scanner with encoding/json: for any input that is a
// JSON object, the envelope fields must decode the same; for any input, Parse
// must not panic and NotJSON must agree with json.Valid on objects.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		f.Fatalf("no transcripts to seed from: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if len(sc.Bytes()) < 4096 {
				f.Add(bytes.Clone(sc.Bytes()))
			}
		}
	}
	f.Add([]byte(`{"type":"tool_call","subtype":"started","call_id":"a\u00e9\ud83d\ude00\"\\","tool_call":{"x":1}}`))
	f.Add([]byte(`{"type":"t\ud800x","session_id":"\xff"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		ev := Parse(Line{Text: line, Len: int64(len(line)), Newline: true})
		trimmed := bytes.TrimSpace(line)
		isObject := json.Valid(line) && len(trimmed) > 0 && trimmed[0] == '{'
		if !isObject {
			if !ev.NotJSON && json.Valid(line) {
				t.Fatalf("valid non-object %q parsed as an event: %+v", line, ev)
			}
			return
		}
		if bytes.Contains(line, []byte(`\u`)) && bytes.Contains(line, []byte(`"\`)) {
			// Escaped keys are not decoded by the scanner; cursor never sends them.
			return
		}
		if ev.NotJSON {
			t.Fatalf("valid object %q reported as not JSON", line)
		}
		// Keys match exactly (encoding/json's struct matching would fold
		// case), and a duplicate key's last value wins, as in the scanner.
		var env map[string]json.RawMessage
		if err := json.Unmarshal(line, &env); err != nil {
			t.Fatalf("json.Valid but Unmarshal: %v", err)
		}
		str := func(key string) (string, bool) {
			var v string
			raw, ok := env[key]
			return v, ok && json.Unmarshal(raw, &v) == nil
		}
		if v, ok := str("type"); ok && v != ev.Type {
			t.Fatalf("type %q, encoding/json %q", ev.Type, v)
		}
		if v, ok := str("subtype"); ok && v != ev.Subtype {
			t.Fatalf("subtype %q, encoding/json %q", ev.Subtype, v)
		}
		if v, ok := str("call_id"); ok && v != "" && ev.Type == "tool_call" && ev.CallID != v {
			t.Fatalf("call_id %q, encoding/json %q", ev.CallID, v)
		}
		if v, ok := str("session_id"); ok && ev.Terminal && ev.SessionID != v {
			t.Fatalf("session_id %q, encoding/json %q", ev.SessionID, v)
		}
	})
}

// TestHugeTimeoutSaturates: a declared timeout too large for a Duration is
// the longest one, never a wrapped or dropped one.
func TestHugeTimeoutSaturates(t *testing.T) {
	t.Parallel()
	for _, ms := range []string{"9.3e12", "1e15", "9007199254740991", "1e16", "1e309"} {
		line := `{"type":"tool_call","subtype":"started","call_id":"x","tool_call":{"shellToolCall":{"args":{"command":"make","timeout":` + ms + `}}}}`
		ev := Parse(Line{Text: []byte(line), Len: int64(len(line)), Newline: true})
		if len(ev.Started) != 1 || ev.Started[0].Timeout < 9e12*time.Millisecond {
			t.Errorf("timeout %s ms read as %+v", ms, ev.Started)
		}
	}
}

// TestEscapesAsJSON: a string's escapes decode as encoding/json decodes
// them (a call id read here must equal the same id read there): each
// escape, upper- and lower-case hex, surrogate pairs whole or lone, and
// invalid UTF-8.
func TestEscapesAsJSON(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`plain`, `\"\\\/\b\f\n\r\t`, `\u00e9\u00C9\u00Ff`, `caf\u00e9 ok`,
		`\ud83d\ude00`, `\uD83D\uDE00`, `\ud83d`, `\ud83dx`, `\ude00\ud83d`, `\ud83d\u0041`,
		"a\xffb", "a\x80b", "\xe2\x82", `\u0000`, `\\`, `a\\`, `\u0039\u00aa\u00AA`,
	} {
		var want string
		if err := json.Unmarshal([]byte(`"`+raw+`"`), &want); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if got := decode([]byte(raw), strings.Contains(raw, `\`)); got != want {
			t.Errorf("decode(%q) = %q, encoding/json %q", raw, got, want)
		}
		ev := Cursor.Parse(physical(`{"type":"tool_call","subtype":"completed","call_id":"` + raw + `","tool_call":{}}`))
		if len(ev.Ended) != 1 || ev.Ended[0] != want {
			t.Errorf("call id %q read as %q, want %q", raw, ev.Ended, want)
		}
	}
}

// TestShortUnicodeEscape: a \u escape cut short by the string's end (a
// malformed line; the scanner does not check escapes) stays as written,
// as other bad escapes do, and never stops the parser.
func TestShortUnicodeEscape(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{`\u12`: `\u12`, `a\u`: `a\u`, `\u123`: `\u123`, `\ud83d\u12`: "\uFFFD\\u12"} {
		ev := Cursor.Parse(physical(`{"type":"tool_call","subtype":"completed","call_id":"` + raw + `","tool_call":{}}`))
		if len(ev.Ended) != 1 || ev.Ended[0] != want {
			t.Errorf("call id %s read as %q, want %q", raw, ev.Ended, want)
		}
	}
}
