package sessionlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// viaSlog writes the record the way slog's JSON handler writes any other,
// with a line that is a JSON object as a json.RawMessage (which slog
// compacts: the same bytes for the compact lines agents print).
func viaSlog(e Event) []byte {
	var b bytes.Buffer
	h := slog.NewJSONHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})
	r := slog.NewRecord(e.Time, slog.LevelDebug, "event", 0)
	r.AddAttrs(slog.Int64("recv_ts", e.RecvTS))
	if e.AgentTS != 0 {
		r.AddAttrs(slog.Int64("agent_ts", e.AgentTS))
	}
	for _, f := range [][2]string{{"type", e.Type}, {"subtype", e.Subtype}, {"call_id", e.CallID}} {
		if f[1] != "" {
			r.AddAttrs(slog.String(f[0], f[1]))
		}
	}
	if !e.ParseError && !e.Truncated && jsonObject(e.Raw) {
		r.AddAttrs(slog.Any("raw", json.RawMessage(e.Raw)))
	} else {
		r.AddAttrs(slog.String("raw", string(e.Raw)))
	}
	if e.ParseError {
		r.AddAttrs(slog.Bool("parse_error", true))
	}
	if e.Truncated {
		r.AddAttrs(slog.Bool("truncated", true), slog.Int64("len", e.Len))
	}
	if e.Partial {
		r.AddAttrs(slog.Bool("partial", true))
	}
	h.Handle(context.Background(), r)
	return b.Bytes()
}

var eventT = time.Date(2026, 11, 25, 22, 44, 27, 136440213, time.UTC)

// TestAppendEventIsSlog checks the encoder writes, byte for byte, what
// slog's JSON handler writes for the same record.
func TestAppendEventIsSlog(t *testing.T) {
	t.Parallel()
	for _, e := range []Event{
		{Time: eventT, RecvTS: 1795646667136, Raw: []byte(`{"type":"thinking","subtype":"delta","text":"a \"quoted\" <b> & \\ back \u001b[0m"}`), Type: "thinking", Subtype: "delta", AgentTS: 42},
		{Time: eventT, RecvTS: 1795646667136, Raw: []byte(`{"type":"thinking","subtype":"delta","text":"a \"quoted\" <b> & \\ back"}`), Type: "thinking", Subtype: "delta", ParseError: true},
		{Time: eventT.Add(-time.Millisecond * 136), RecvTS: 1, Raw: []byte("T: plain\ttext\r with \x1b[32mcolour\x7f and \x00 nul"), ParseError: true},
		{Time: eventT, RecvTS: 1, Raw: []byte("ünïcödé ✓ 😀 \u2028 \u2029 line"), CallID: "call_1\nfc_1", Type: "tool_call", Subtype: "started"},
		{Time: eventT, RecvTS: 1, Raw: []byte(`{"text":"ünïcödé ✓ 😀 \u2028 \u2029"}`)},
		{Time: eventT, RecvTS: 1, Raw: []byte(`{"type":"x","data":"` + strings.Repeat("x", 1000)), Truncated: true, Len: 5 << 20, Partial: true},
		{Time: eventT, RecvTS: 1, Raw: []byte("")},
	} {
		got, want := AppendEvent(nil, e), viaSlog(e)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendEvent\n got %s\nwant %s", got, want)
		}
	}
}

// TestAppendEventRaw checks which lines are kept as they are (a JSON object
// and nothing else, strictly valid, valid UTF-8, not too deep) and which
// as a string, and that each comes back byte for byte.
func TestAppendEventRaw(t *testing.T) {
	t.Parallel()
	deep := func(n int) string { return strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1) }
	for line, asIs := range map[string]bool{
		`{}`: true,
		`{"a":[1,-2.5e+3,0,1E5,0.5,true,false,null,{"b":"c"},[],[[]]],"":{}}`: true,
		`{ "a" : [ 1 , 2 ] , "b" : { } }`:                                     true,
		"{\"a\":1,\t\"b\":2}":                                                 true,
		"{\"a\":1,\r\"b\":2}":                                                 false,
		"{\n}":                                                                false,
		`{"esc":"\" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \uD800"}`: true,
		"{\"utf8\":\"é ✓ 😀\"}":                                         true,
		"{\"ls\":\"\u2028\"}":                                          false,
		"{\"ps\":\"\u2029\"}":                                          false,
		deep(maxRawDepth):                                              true,
		deep(maxRawDepth + 1):                                          false,
		` {"a":1}`:                                                     false,
		`{"a":1} `:                                                     false,
		"{\"a\":1}\r":                                                  false,
		`[{"a":1}]`:                                                    false,
		`"{}"`:                                                         false,
		`{"a":1}{"b":2}`:                                               false,
		`{"a":1}}`:                                                     false,
		`{"a":{"b":1}`:                                                 false,
		`{"a":1,}`:                                                     false,
		`{,"a":1}`:                                                     false,
		`{"a":[1,]}`:                                                   false,
		`{"a" 1}`:                                                      false,
		`{a:1}`:                                                        false,
		`{"a":1]`:                                                      false,
		`{"a":[1}`:                                                     false,
		`{"a":01}`:                                                     false,
		`{"a":1.}`:                                                     false,
		`{"a":.5}`:                                                     false,
		`{"a":+1}`:                                                     false,
		`{"a":1e}`:                                                     false,
		`{"a":-}`:                                                      false,
		`{"a":tru}`:                                                    false,
		`{"a":nul}`:                                                    false,
		`{"a":"\x"}`:                                                   false,
		`{"a":"\u12"}`:                                                 false,
		`{"a":"\u12g4"}`:                                               false,
		`{"a":"open}`:                                                  false,
		"{\"tab\":\"a\tb\"}":                                           false,
		"{\"ansi\":\"\x1b[32m\"}":                                      false,
		"{\"nul\":\"\x00\"}":                                           false,
		"{\"del\":\"\x7f\"}":                                           true,
		"{\"bad\":\"caf\xe9\"}":                                        false,
		"{\"surrogate\":\"\xed\xa0\x80\"}":                             false,
		"{\"overlong\":\"\xc0\xaf\"}":                                  false,
		"{\"a\":1,\x00\"b\":2}":                                        false,
		"T: Named models unavailable":                                  false,
	} {
		b := AppendEvent(nil, Event{Time: eventT, Raw: []byte(line)})
		var rec EventText
		var as struct {
			Raw json.RawMessage `json:"raw"`
		}
		if err := errors.Join(json.Unmarshal(b, &rec), json.Unmarshal(b, &as)); err != nil {
			t.Errorf("%q: %s: %v", line, b, err)
			continue
		}
		if got := len(as.Raw) > 0 && as.Raw[0] == '{'; got != asIs {
			t.Errorf("%q kept as it is: %v, want %v: %s", line, got, asIs, b)
		}
		if !bytes.Equal(rec.Line(), []byte(line)) {
			t.Errorf("%q came back as %q", line, rec.Line())
		}
		if asIs && !bytes.Contains(b, []byte(`,"raw":`+line+"}\n")) {
			t.Errorf("%q not kept byte for byte: %s", line, b)
		}
	}
}

// TestAppendEventTrustsTheScanner checks a line the scanner did not take
// as a whole JSON object is written as a string even if it is one.
func TestAppendEventTrustsTheScanner(t *testing.T) {
	t.Parallel()
	line := []byte(`{"a":1}`)
	for _, e := range []Event{{Raw: line, ParseError: true}, {Raw: line, Truncated: true, Len: 100}} {
		if b := AppendEvent(nil, e); !bytes.Contains(b, []byte(`"raw":"{\"a\":1}"`)) {
			t.Errorf("%+v: %s", e, b)
		}
	}
}

func TestAppendEventBase64(t *testing.T) {
	t.Parallel()
	raw := []byte("caf\xe9 \xff")
	var rec struct {
		Raw    *string `json:"raw"`
		RawB64 []byte  `json:"raw_base64"`
	}
	if err := json.Unmarshal(AppendEvent(nil, Event{Time: eventT, Raw: raw}), &rec); err != nil || rec.Raw != nil || !bytes.Equal(rec.RawB64, raw) {
		t.Errorf("record %+v, %v", rec, err)
	}
}

// TestEventTextOldLogs checks records as earlier versions wrote them (the
// line always a string) read back the same.
func TestEventTextOldLogs(t *testing.T) {
	t.Parallel()
	for rec, want := range map[string]string{
		`{"msg":"event","raw":"{\"type\":\"x\",\"t\":\"a\\\"b\"}"}`: `{"type":"x","t":"a\"b"}`,
		`{"msg":"event","raw":{"type":"x","t":"a\"b"}}`:             `{"type":"x","t":"a\"b"}`,
		`{"msg":"event","raw":"T: plain"}`:                          `T: plain`,
		`{"msg":"event","raw_base64":"Y2Fm6Q=="}`:                   "caf\xe9",
		`{"msg":"event","raw":""}`:                                  ``,
	} {
		var r struct {
			Msg string
			EventText
		}
		if err := json.Unmarshal([]byte(rec), &r); err != nil || string(r.Line()) != want {
			t.Errorf("%s: line %q, %v; want %q", rec, r.Line(), err, want)
		}
	}
}

// TestRedactRawRecords checks secrets are masked in a record that holds
// the agent's line as it is, as in one that holds it as a string: the
// Redactor knows each secret as is, escaped once (inside the agent's JSON)
// and escaped twice (inside a string that holds the agent's JSON).
func TestRedactRawRecords(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]string{"--api-key", "key_live_0123456789"}, []string{`ANTHROPIC_API_KEY=quote"and\slash`})
	line := []byte(`{"type":"tool_call","text":"k=key_live_0123456789 q=quote\"and\\slash","cmd":"curl -H 'Authorization: Bearer abc.DEF-123_456' -d sk-ant-api03-ABCDEFGHIJKLMNOP"}`)
	for _, parseError := range []bool{false, true} {
		rec := r.Redact(AppendEvent(nil, Event{Time: eventT, Raw: line, ParseError: parseError}))
		for _, leak := range []string{"key_live", "and\\", "slash", "abc.DEF", "ABCDEFGH"} {
			if bytes.Contains(rec, []byte(leak)) {
				t.Errorf("parse_error %v: %q leaks: %s", parseError, leak, rec)
			}
		}
		if n := bytes.Count(rec, []byte(Mask)); n != 4 || !json.Valid(rec) {
			t.Errorf("parse_error %v: %d masks, valid %v: %s", parseError, n, json.Valid(rec), rec)
		}
	}
}

// FuzzAppendEvent checks any line comes back intact from its record, in a
// record that is valid JSON, valid UTF-8 and one line, as slog would have
// written it; and that a line is kept as it is exactly when it is one
// strictly valid JSON object.
func FuzzAppendEvent(f *testing.F) {
	f.Add([]byte(`{"type":"x","text":"\\"}`), "call\n1", false)
	f.Add([]byte("\x00\x1f\"\\\t abcdefgh ijklmnop"), "", false)
	f.Add([]byte(`{"a":[1,-2.5e+3,true,null,{"b":"\u00e9\n"}],"c":{}}`), "", false)
	f.Add([]byte(`{"a":"b\tc"}`), "", false)
	f.Add([]byte(`{"a":01}`), "", true)
	f.Add([]byte("{\"a\":\"caf\xe9\"}"), "", false)
	f.Fuzz(func(t *testing.T, raw []byte, callID string, parseError bool) {
		if !utf8.ValidString(callID) {
			return
		}
		e := Event{Time: eventT, RecvTS: 7, Raw: raw, CallID: callID, ParseError: parseError}
		b := AppendEvent(nil, e)
		if !json.Valid(b) || !utf8.Valid(b) || bytes.IndexByte(b, '\n') != len(b)-1 {
			t.Fatalf("not one valid JSONL record: %q", b)
		}
		var rec struct {
			EventText
			CallID string `json:"call_id"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if got := rec.Line(); !bytes.Equal(got, raw) || rec.CallID != callID {
			t.Fatalf("raw %q, call %q; want %q, %q", got, rec.CallID, raw, callID)
		}
		isObject := len(raw) > 0 && raw[0] == '{' && raw[len(raw)-1] == '}' && json.Valid(raw) && utf8.Valid(raw)
		if jsonObject(raw) && !isObject {
			t.Fatalf("%q kept as it is, but it is not one valid JSON object", raw)
		}
		oneLine := !bytes.ContainsAny(raw, "\n\r\u2028\u2029")
		if isObject && oneLine && bytes.Count(raw, []byte("{"))+bytes.Count(raw, []byte("[")) <= maxRawDepth && !jsonObject(raw) {
			t.Fatalf("%q is a JSON object, but is written as a string", raw)
		}
		var compact bytes.Buffer
		if utf8.Valid(raw) && (!isObject || json.Compact(&compact, raw) == nil && bytes.Equal(compact.Bytes(), raw)) && !bytes.Equal(b, viaSlog(e)) {
			t.Fatalf("differs from slog:\n%s\n%s", b, viaSlog(e))
		}
	})
}
