package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// logical is one line a Joiner emitted, copied.
type logical struct {
	text string
	len  int64
	ev   Event
}

// joinAll feeds physical lines to a Joiner and collects what it emits.
func joinAll(keep int, parse func(Line) Event, lines []Line) []logical {
	var out []logical
	j := NewJoiner(keep, parse, func(l Line, ev Event) {
		out = append(out, logical{string(l.Text), l.Len, ev})
	})
	for _, l := range lines {
		j.Add(l)
	}
	j.Flush()
	return out
}

func physical(text string) Line {
	return Line{Text: []byte(text), Len: int64(len(text)), Newline: true}
}

func physicalLines(texts ...string) []Line {
	var ls []Line
	for _, t := range texts {
		ls = append(ls, physical(t))
	}
	return ls
}

// literalNewlines turns each \n escape in data's strings into the newline
// itself: what the affected cursor-agent builds print.
func literalNewlines(data []byte) []byte {
	var out []byte
	var st strState
	for i := 0; i < len(data); i++ {
		c := data[i]
		if st.inStr && !st.esc && c == '\\' && i+1 < len(data) && data[i+1] == 'n' {
			out = append(out, '\n')
			i++
			continue
		}
		st.scan(data[i : i+1])
		if c == '\n' {
			st = strState{}
		}
		out = append(out, c)
	}
	return out
}

// escapedNewlines is the inverse: newlines inside strings become \n again,
// so a fixture can be compared with the line-by-line stream it stands for.
func escapedNewlines(data []byte) []byte {
	var out []byte
	var st strState
	for _, c := range data {
		if c == '\n' {
			if st.inStr {
				st.newline()
				out = append(out, '\\', 'n')
				continue
			}
			st = strState{}
		} else {
			st.scan([]byte{c})
		}
		out = append(out, c)
	}
	return out
}

func TestJoiner(t *testing.T) {
	t.Parallel()
	const init = `{"type":"system","subtype":"init","session_id":"s1"}`
	type want struct {
		label  string // Event.Label()
		text   string
		answer string
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  []want
	}{
		{
			name:  "single-line events pass through",
			lines: []string{init, `{"type":"result","subtype":"success","result":"done","session_id":"s1"}`},
			want:  []want{{"system/init", init, ""}, {"result/success", `{"type":"result","subtype":"success","result":"done","session_id":"s1"}`, "done"}},
		},
		{
			name:  "a result over three lines, one of them blank",
			lines: []string{init, `{"type":"result","subtype":"success","result":"**Plan**`, ``, `**Blockers:** none.","session_id":"s1"}`, `T: after`},
			want: []want{
				{"system/init", init, ""},
				{"result/success", "{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"**Plan**\n\n**Blockers:** none.\",\"session_id\":\"s1\"}", "**Plan**\n\n**Blockers:** none."},
				{"text", "T: after", ""},
			},
		},
		{
			name: "braces, brackets and escaped quotes inside the string",
			lines: []string{
				`{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"result":{"success":{"stdout":"{\"a\": [1,`,
				`}} \\\" ]`,
				`done"}}}}}`,
			},
			want: []want{{"tool_call/completed", "{\"type\":\"tool_call\",\"subtype\":\"completed\",\"call_id\":\"c1\",\"tool_call\":{\"shellToolCall\":{\"result\":{\"success\":{\"stdout\":\"{\\\"a\\\": [1,\n}} \\\\\\\" ]\ndone\"}}}}}", ""}},
		},
		{
			name:  "a new event abandons the hold; the held lines come out as they were",
			lines: []string{`{"type":"assistant","message":{"content":[{"type":"text","text":"cut`, `short`, init},
			want: []want{
				{"text", `{"type":"assistant","message":{"content":[{"type":"text","text":"cut`, ""},
				{"text", `short`, ""},
				{"system/init", init, ""},
			},
		},
		{
			name:  "the abandoning line may start a hold itself",
			lines: []string{`{"type":"assistant","message":"a`, `{"type":"result","result":"b`, `c"}`},
			want: []want{
				{"text", `{"type":"assistant","message":"a`, ""},
				{"result", "{\"type\":\"result\",\"result\":\"b\nc\"}", "b\nc"},
			},
		},
		{
			name:  "closed but still not JSON: released line by line",
			lines: []string{`{"type":"result","result":"a`, `b"} trailing`},
			want:  []want{{"text", `{"type":"result","result":"a`, ""}, {"text", `b"} trailing`, ""}},
		},
		{
			name:  "the stream ends inside the event",
			lines: []string{init, `{"type":"result","result":"a`, `b`},
			want:  []want{{"system/init", init, ""}, {"text", `{"type":"result","result":"a`, ""}, {"text", "b", ""}},
		},
		{
			name:  "broken JSON that does not end in a string is not held",
			lines: []string{`{"type":"x",`, `"y":1}`},
			want:  []want{{"text", `{"type":"x",`, ""}, {"text", `"y":1}`, ""}},
		},
		{
			name:  "text lines are not held",
			lines: []string{`T: "quoted`, `more"`},
			want:  []want{{"text", `T: "quoted`, ""}, {"text", `more"`, ""}},
		},
		{
			name:  "a line that ends in a backslash inside the string",
			lines: []string{`{"type":"result","result":"a\`, `b"}`},
			want:  []want{{"result", "{\"type\":\"result\",\"result\":\"a\\\nb\"}", "a\nb"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := joinAll(DefaultKeep, Parse, physicalLines(tc.lines...))
			var g []want
			for _, l := range got {
				g = append(g, want{l.ev.Label(), l.text, l.ev.Answer})
				if l.len != int64(len(l.text)) {
					t.Errorf("%q: Len %d, text %d bytes", l.text, l.len, len(l.text))
				}
			}
			if !slices.Equal(g, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", g, tc.want)
			}
		})
	}
}

// TestJoinerEmitsAtClose checks that an event comes out as soon as the
// line that closes it arrives: an agent that answered and lingers writes
// nothing after its result, so the result must not wait for a next line.
func TestJoinerEmitsAtClose(t *testing.T) {
	t.Parallel()
	var got []Event
	j := NewJoiner(DefaultKeep, Parse, func(_ Line, ev Event) { got = append(got, ev) })
	j.Add(physical(`{"type":"result","subtype":"success","result":"line one`))
	if len(got) != 0 || !j.Holding() {
		t.Fatalf("after the first line: %+v, holding %v", got, j.Holding())
	}
	j.Add(physical(`line two","session_id":"s"}`))
	if len(got) != 1 || !got[0].Terminal || got[0].Answer != "line one\nline two" || j.Holding() {
		t.Fatalf("after the closing line: %+v, holding %v", got, j.Holding())
	}
}

// TestJoinerFragment checks that a stream ending inside an event, in an
// unfinished line, gives its lines back as the Splitter cut them.
func TestJoinerFragment(t *testing.T) {
	t.Parallel()
	var got []Line
	j := NewJoiner(DefaultKeep, Parse, func(l Line, _ Event) {
		got = append(got, Line{Text: bytes.Clone(l.Text), Len: l.Len, Newline: l.Newline})
	})
	s := NewSplitter(DefaultKeep, j.Add)
	s.Write([]byte("{\"type\":\"result\",\"result\":\"a\nb"))
	s.Flush()
	if len(got) != 0 || !j.Holding() {
		t.Fatalf("emitted %+v before the end", got)
	}
	j.Flush()
	if len(got) != 2 || string(got[0].Text) != `{"type":"result","result":"a` || !got[0].Newline || string(got[1].Text) != "b" || got[1].Newline {
		t.Errorf("got %+v", got)
	}
}

// TestJoinerTruncated checks lines the Splitter cut: one never starts a
// hold, and one that arrives while holding ends it, the fields before the
// cut still read.
func TestJoinerTruncated(t *testing.T) {
	t.Parallel()
	head := `{"type":"result","subtype":"success","session_id":"s9","result":"`
	cut := Line{Text: []byte(head + "xxxx"), Len: 5000, Newline: true}
	got := joinAll(DefaultKeep, Parse, []Line{cut, physical(`more"}`)})
	if len(got) != 2 || !got[0].ev.Truncated || !got[0].ev.Terminal || got[1].ev.Label() != "text" {
		t.Fatalf("a cut line started a hold: %+v", got)
	}

	cont := Line{Text: []byte("more text"), Len: 5000, Newline: true}
	got = joinAll(DefaultKeep, Parse, []Line{physical(head + "a"), cont, physical(`tail"}`)})
	if len(got) != 2 {
		t.Fatalf("got %+v", got)
	}
	ev := got[0].ev
	if !ev.Truncated || !ev.Terminal || ev.SessionID != "s9" || got[0].len != int64(len(head)+1+1+5000) {
		t.Errorf("joined cut line: %+v (len %d)", ev, got[0].len)
	}
	if got[1].text != `tail"}` || got[1].ev.Label() != "text" {
		t.Errorf("after the cut: %+v", got[1])
	}
}

// TestJoinerBounds checks the byte and line bounds: a joined event longer
// than keep comes out truncated (it still closes its call and ends the
// run), and a release past maxHeld lines merges the rest into one line.
func TestJoinerBounds(t *testing.T) {
	t.Parallel()
	const keep = 100
	lines := physicalLines(`{"type":"tool_call","subtype":"completed","call_id":"c7","tool_call":{"shellToolCall":{"result":{"success":{"stdout":"`)
	for range 50 {
		lines = append(lines, physical(strings.Repeat("out ", 10)))
	}
	lines = append(lines, physical(`"}}}}}`))
	got := joinAll(keep, Parse, lines)
	if len(got) != 1 {
		t.Fatalf("%d logical lines, want 1", len(got))
	}
	total := int64(-1)
	for _, l := range lines {
		total += l.Len + 1
	}
	if l := got[0]; len(l.text) != keep || l.len != total || !l.ev.Truncated || !slices.Equal(l.ev.Ended, []string{"c7"}) {
		t.Errorf("kept %d bytes of %d, event %+v", len(l.text), l.len, l.ev)
	}

	lines = physicalLines(`{"type":"assistant","message":"`)
	for i := range maxHeld + 10 {
		lines = append(lines, physical(fmt.Sprint(i)))
	}
	lines = append(lines, physical(`{"type":"user"}`))
	got = joinAll(DefaultKeep, Parse, lines)
	if len(got) != maxHeld+2 {
		t.Fatalf("%d lines released, want %d", len(got), maxHeld+2)
	}
	rest := got[maxHeld]
	if want := "1023\n1024\n1025\n1026\n1027\n1028\n1029\n1030\n1031\n1032\n1033"; rest.text != want || rest.len != int64(len(want)) {
		t.Errorf("rest %q (%d)", rest.text, rest.len)
	}
	if got[maxHeld+1].ev.Type != "user" {
		t.Errorf("last %+v", got[maxHeld+1])
	}
}

// TestMultilineFixtures replays the fixtures whose events span lines, byte
// for byte, cut into reads of every size, and compares what comes out with
// the same stream written one event a line.
func TestMultilineFixtures(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/wild/cursor-multiline-*.jsonl")
	if len(files) < 3 {
		t.Fatalf("fixtures: %v", files)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var want []Event
			var wantText []string
			NewSplitter(DefaultKeep, func(l Line) {
				want = append(want, Parse(l))
				wantText = append(wantText, string(literalNewlines(l.Text)))
			}).Write(escapedNewlines(data))
			if !bytes.Equal(literalNewlines(escapedNewlines(data)), data) {
				t.Fatal("the fixture is not a line-per-event stream with its newlines unescaped")
			}
			if bytes.Count(data, []byte("\n")) <= len(want) {
				t.Fatalf("no event spans lines: %d lines, %d events", bytes.Count(data, []byte("\n")), len(want))
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(data))))
			for _, chunk := range []int{1, 7, 4096, len(data)} {
				var got []Event
				var gotText []string
				j := NewJoiner(DefaultKeep, Parse, func(l Line, ev Event) {
					got = append(got, ev)
					gotText = append(gotText, string(l.Text))
				})
				s := NewSplitter(DefaultKeep, j.Add)
				for rest := data; len(rest) > 0; {
					n := min(len(rest), 1+rng.IntN(chunk))
					s.Write(rest[:n])
					rest = rest[n:]
				}
				s.Flush()
				j.Flush()
				if !slices.Equal(gotText, wantText) {
					t.Fatalf("chunks ≤%d: logical lines differ", chunk)
				}
				for i := range want {
					if !equalEvent(got[i], want[i]) {
						t.Fatalf("chunks ≤%d, event %d:\n got %+v\nwant %+v", chunk, i, got[i], want[i])
					}
				}
				var r, w Reply
				for i := range got {
					r.Add(got[i])
					w.Add(want[i])
				}
				if r.String() == "" || r.String() != w.String() {
					t.Errorf("answer %q, want %q", r.String(), w.String())
				}
			}
		})
	}
}

// TestLongAnswers is the 23–31% case: the longer the answer, the more
// likely it has newlines and spans lines. Every length must come out whole.
func TestLongAnswers(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 15, 200, 5000, 20000, 40000} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "- step %d: `go test ./pkg%d` — \"ok\" ✓\n", i, i)
		}
		answer := b.String()
		line, _ := json.Marshal(struct {
			Type      string `json:"type"`
			Subtype   string `json:"subtype"`
			IsError   bool   `json:"is_error"`
			Result    string `json:"result"`
			SessionID string `json:"session_id"`
		}{"result", "success", false, answer, "s"})
		data := literalNewlines(append(line, '\n'))
		var got []logical
		j := NewJoiner(DefaultKeep, Parse, func(l Line, ev Event) { got = append(got, logical{string(l.Text), l.Len, ev}) })
		s := NewSplitter(DefaultKeep, j.Add)
		s.Write(data)
		s.Flush()
		j.Flush()
		if len(got) != 1 || !got[0].ev.Terminal {
			t.Fatalf("%d lines: %d logical lines, want 1 result: %+v", n, len(got), got)
		}
		ev := got[0].ev
		if len(line) <= DefaultKeep {
			if ev.Answer != answer || ev.Truncated {
				t.Errorf("%d lines: answer of %d bytes, want %d", n, len(ev.Answer), len(answer))
			}
			continue
		}
		// Past the bound, like a single line that long: the run still ends,
		// the answer (cut mid-string) is not read.
		if !ev.Truncated || got[0].len != int64(len(data)-1) || len(got[0].text) != DefaultKeep {
			t.Errorf("%d lines (%d bytes): %+v, len %d", n, len(line), ev, got[0].len)
		}
	}
}

// FuzzJoiner takes any JSON object, writes it the way the affected cursor
// builds do (each \n escape in its strings a real newline), between two
// other lines, and checks the Joiner gives back the same event as the
// one-line form, for every profile, and the answer encoding/json decodes.
func FuzzJoiner(f *testing.F) {
	for _, file := range []string{"testdata/normal.jsonl", "testdata/newline-callid.jsonl", "testdata/agents/claude-B.jsonl"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for line := range bytes.Lines(data) {
			if len(line) < 4096 {
				f.Add(bytes.TrimSuffix(line, []byte("\n")))
			}
		}
	}
	f.Add([]byte(`{"type":"result","result":"a\n\nb\\n\"c\n","session_id":"x\ny"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var compact bytes.Buffer
		if len(in) > 64<<10 || json.Compact(&compact, in) != nil || compact.Len() == 0 || compact.Bytes()[0] != '{' {
			return
		}
		one := compact.Bytes()
		multi := literalNewlines(one)
		const before, after = `{"type":"system","subtype":"init","session_id":"s"}`, "T: done"
		input := append(append([]byte(before+"\n"), multi...), "\n"+after+"\n"...)
		for _, p := range profiles {
			var got []logical
			j := NewJoiner(DefaultKeep, p.Parse, func(l Line, ev Event) { got = append(got, logical{string(l.Text), l.Len, ev}) })
			s := NewSplitter(DefaultKeep, j.Add)
			s.Write(input)
			s.Flush()
			j.Flush()
			if len(got) != 3 || got[0].text != before || got[1].text != string(multi) || got[2].text != after {
				t.Fatalf("%s: %q came out as %+v", p.Name, multi, got)
			}
			want := p.Parse(physical(string(one)))
			if !equalEvent(got[1].ev, want) {
				t.Fatalf("%s: joined %q\n got %+v\nwant %+v", p.Name, multi, got[1].ev, want)
			}
		}
		// The answer decodes as encoding/json decodes the one-line form.
		ev := got1(t, multi)
		var env map[string]json.RawMessage
		if json.Unmarshal(one, &env) != nil || ev.NotJSON || bytes.Contains(one, []byte(`\u`)) {
			return
		}
		var typ, result string
		if json.Unmarshal(env["type"], &typ) == nil && typ == "result" && json.Unmarshal(env["result"], &result) == nil {
			var isError bool
			_ = json.Unmarshal(env["is_error"], &isError)
			if !isError && ev.Answer != result {
				t.Fatalf("answer %q, encoding/json %q", ev.Answer, result)
			}
		}
	})
}

// got1 joins the physical lines of one event with cursor's parser.
func got1(t *testing.T, multi []byte) Event {
	t.Helper()
	var evs []Event
	j := NewJoiner(DefaultKeep, Parse, func(_ Line, ev Event) { evs = append(evs, ev) })
	s := NewSplitter(DefaultKeep, j.Add)
	s.Write(append(slices.Clip(multi), '\n'))
	j.Flush()
	if len(evs) != 1 {
		t.Fatalf("%q: %d events", multi, len(evs))
	}
	return evs[0]
}

// TestJoinerNoAllocs checks that a Joiner adds no allocation to a
// transcript's lines: it parses each line once, and what Parse allocates
// it still does, and nothing more.
//
// Parse's own allocations are counted apart: under the race detector they
// vary from run to run (the regexps that classify an error line keep their
// machines in a sync.Pool, which the race detector makes drop a quarter of
// what it is given back), which drowned the Joiner's count in noise.
func TestJoinerNoAllocs(t *testing.T) {
	data, err := os.ReadFile("testdata/noisy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []Line
	for l := range bytes.Lines(data) {
		l = bytes.TrimSuffix(l, []byte("\n"))
		lines = append(lines, Line{Text: l, Len: int64(len(l)), Newline: true})
	}
	var ms runtime.MemStats
	mallocs := func() uint64 {
		runtime.ReadMemStats(&ms)
		return ms.Mallocs
	}
	var inParse, parses uint64
	parse := func(l Line) Event {
		before := mallocs()
		ev := Parse(l)
		inParse += mallocs() - before
		parses++
		return ev
	}
	emit := func(Line, Event) {}
	// allocs returns the allocations per run of f outside Parse, and the
	// parses per run.
	allocs := func(f func()) (outside, calls uint64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		f() // warm up, as testing.AllocsPerRun does
		const runs = 20
		inParse, parses = 0, 0
		before := mallocs()
		for range runs {
			f()
		}
		total := mallocs() - before
		return (total - inParse) / runs, parses / runs
	}
	direct, directParses := allocs(func() {
		for _, l := range lines {
			emit(l, parse(l))
		}
	})
	j := NewJoiner(DefaultKeep, parse, emit)
	joined, joinedParses := allocs(func() {
		for _, l := range lines {
			j.Add(l)
		}
	})
	if joined > direct || joinedParses != directParses {
		t.Errorf("through a Joiner: %d allocations outside Parse and %d parses a transcript, without: %d and %d", joined, joinedParses, direct, directParses)
	}
}

// BenchmarkTranscript measures the hot path on whole transcripts, split
// and parsed as the PTY reader does, without a Joiner and with one.
func BenchmarkTranscript(b *testing.B) {
	for _, file := range []string{"normal.jsonl", "noisy.jsonl", "wild/cursor-multiline-normal.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(file+"/direct", func(b *testing.B) {
			var n int
			s := NewSplitter(DefaultKeep, func(l Line) {
				if ev := Parse(l); ev.Terminal {
					n++
				}
			})
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s.Write(data)
			}
		})
		b.Run(file+"/joined", func(b *testing.B) {
			var n int
			j := NewJoiner(DefaultKeep, Parse, func(_ Line, ev Event) {
				if ev.Terminal {
					n++
				}
			})
			s := NewSplitter(DefaultKeep, j.Add)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s.Write(data)
			}
		})
	}
}
