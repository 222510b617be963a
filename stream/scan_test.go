package stream

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestLayoutDoesNotMatter: JSON's whitespace (spaces, tabs, carriage
// returns and newlines between tokens) changes nothing an agent's line
// says. Every line of every agent's captures, laid out by json.Indent,
// reads as the same event; with bytes after its object, or cut before its
// end, it is not a JSON object.
func TestLayoutDoesNotMatter(t *testing.T) {
	t.Parallel()
	for _, p := range profiles {
		files := capturesOf(t, p)
		wild, _ := filepath.Glob(filepath.Join("testdata", "wild", p.Name+"-*.jsonl"))
		for _, file := range append(files, wild...) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for n, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				line = bytes.TrimSpace(line) // a PTY's "\r"
				if !json.Valid(line) || len(line) > 64<<10 {
					continue
				}
				want := p.Parse(physical(string(line)))
				var spaced bytes.Buffer
				if err := json.Indent(&spaced, line, " \r", "\t"); err != nil {
					t.Fatal(err)
				}
				if got := p.Parse(physical(" " + spaced.String() + "\t")); !equalEvent(got, want) {
					t.Errorf("%s:%d: laid out, %.200q\n gives %+v\n  not %+v", file, n+1, spaced.String(), got, want)
				}
				for _, bad := range []string{string(line) + " x", string(line) + "}", string(line[:len(line)-1])} {
					if got := p.Parse(physical(bad)); !got.NotJSON || got.Type != "" {
						t.Errorf("%s:%d: %q read as JSON: %+v", file, n+1, bad[max(0, len(bad)-40):], got)
					}
				}
			}
		}
	}
}

// TestValuesOfEveryType: a line's members of every JSON type, before and
// after the ones read, are stepped over whole, whatever their layout; a
// malformed one makes the line not JSON.
func TestValuesOfEveryType(t *testing.T) {
	t.Parallel()
	const tail = `"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"ls"}}}}`
	for _, skipped := range []string{
		`"n":null`, `"t":true`, `"f":false`, `"i":-12`, `"x":1.5e+3`, `"y":9E-1`, `"z":0`,
		`"s":"a \"quoted\" {brace} [x]"`, `"e":{}`, `"a":[]`, `"o":{"a":[1,{"b":"}"}],"c":{"d":null}}`,
		`"aa":[[],[{}],"]",9]`, `"ws" : [ 1 , 2 ]`,
	} {
		line := `{` + skipped + `,` + tail
		ev := Cursor.Parse(physical(line))
		if ev.NotJSON || ev.Type != "tool_call" || len(ev.Started) != 1 || ev.Started[0].Command != "ls" {
			t.Errorf("%s: %+v", line, ev)
		}
	}
	for _, bad := range []string{
		`{"n":nul,`, `{"t":tru,`, `{"f":fals,`, `{"i":,`, `{"s":"a,`, `{"a":[1,2,`, `{"o":{"a":1,`,
		`{"k" 1,`, `{"k":1 "j":2,`, `{1:2,`, `{,`, `{"k":1,,`,
	} {
		line := bad + tail
		if ev := Cursor.Parse(physical(line)); !ev.NotJSON {
			t.Errorf("%s read as JSON: %+v", line, ev)
		}
	}
	for _, bad := range []string{``, ` `, `[]`, `"s"`, `{`, `{"type":"a"`, `{"type":"a",}`, `{"type":"a"}}`, `{"type":"a"}{}`} {
		if ev := Cursor.Parse(physical(bad)); !ev.NotJSON {
			t.Errorf("%q read as JSON: %+v", bad, ev)
		}
	}
	if ev := Cursor.Parse(physical(`{}`)); ev.NotJSON {
		t.Errorf("{} read as not JSON")
	}
}

// TestNumbers: the numbers agents write for counts and timeouts, in any of
// JSON's spellings, and the ones that are not counts.
func TestNumbers(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]int64{
		"0": 0, "9": 9, "1200": 1200, "1.5e3": 1500, "15E2": 1500, "1e+3": 1000, "2.9": 2,
		"9e18": 9e18, "-5": -5, "-9e18": -9e18,
	} {
		s := scanner{b: []byte(" " + text + ",")}
		if got, ok := s.int64(); !ok || got != want {
			t.Errorf("int64(%s) = %d, %v; want %d", text, got, ok, want)
		}
	}
	for _, text := range []string{"9.1e18", "-9.1e18", "1e400", `"12"`, "null", "[1]", "--"} {
		s := scanner{b: []byte(text)}
		if got, ok := s.int64(); ok {
			t.Errorf("int64(%s) = %d, want none", text, got)
		}
	}
	for text, want := range map[string]string{
		"90000": "1m30s", "1.5E+3": "1.5s", "0": "0s", "-1": "0s", "0.5": "500µs", "null": "0s", `"9"`: "0s",
		"1e300": "2562047h47m16.854775807s", "9223372036854": "2562047h47m16.854775807s", "9223372036853": "2562047h47m16.853000192s",
	} {
		s := scanner{b: []byte(text)}
		if got := s.millis().String(); got != want {
			t.Errorf("millis(%s) = %s, want %s", text, got, want)
		}
	}
}

// TestCallSummary: a call is summed up by the argument that best says what
// it does: a command before a file, a file before a search, and Claude's
// description of a command, or of a Task, when that is all it has.
func TestCallSummary(t *testing.T) {
	t.Parallel()
	for input, want := range map[string]string{
		`{"command":"sleep 20","description":"Sleep for 20 seconds","timeout":60000}`:                 "sleep 20",
		`{"description":"Sleep for 20 seconds","command":"sleep 20"}`:                                 "sleep 20",
		`{"description":"Explore the codebase","prompt":"Find the parser","subagent_type":"Explore"}`: "Explore the codebase",
		`{"file_path":"/w/go.mod","description":"Read go.mod"}`:                                       "/w/go.mod",
		`{"pattern":"TODO","path":"/w"}`:                                                              "/w",
		`{"name":"search","query":"q"}`:                                                               "q",
		`{"server":"docs","name":"search_docs"}`:                                                      "search_docs",
		`{"url":"https://example.com","description":"Fetch the page"}`:                                "https://example.com",
	} {
		line := `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"X","input":` + input + `}]},"session_id":"s"}`
		ev := Claude.Parse(physical(line))
		if len(ev.Started) != 1 || ev.Started[0].Command != want {
			t.Errorf("input %s: started %+v, want command %q", input, ev.Started, want)
		}
	}
}
