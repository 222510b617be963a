package stream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// walk reads a capture with a profile, as the proxy does.
type walked struct {
	session  string
	started  []Call
	ended    []string
	open     map[string]bool
	terminal int
	failed   int
	notJSON  int
	reply    Reply
}

func walk(t *testing.T, p *Profile, file string) walked {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	w := walked{open: map[string]bool{}}
	s := NewSplitter(DefaultKeep, func(l Line) {
		ev := p.Parse(l)
		if ev.SessionID != "" && w.session == "" {
			w.session = ev.SessionID
		}
		if ev.NotJSON {
			w.notJSON++
		}
		if ev.Terminal {
			w.terminal++
		}
		if ev.Failed {
			w.failed++
		}
		w.reply.Add(ev)
		for _, c := range ev.Started {
			w.started = append(w.started, c)
			w.open[c.ID] = true
		}
		for _, id := range ev.Ended {
			if !w.open[id] {
				t.Errorf("%s: %q ended without starting", filepath.Base(file), id)
			}
			w.ended = append(w.ended, id)
			delete(w.open, id)
		}
	})
	s.Write(data)
	s.Flush()
	return w
}

// TestRealCaptures reads the streams the real CLIs wrote (plain answer,
// sleep 20 through their shell tool, a stalled model) and checks what each
// profile makes of them.
func TestRealCaptures(t *testing.T) {
	t.Parallel()
	const answerB = "The command `sleep 20` finished. Done."
	for _, tc := range []struct {
		file     string
		p        *Profile
		session  string
		calls    []Call // started, in order
		terminal int
		failed   int // terminal events that say the run failed
		open     int
		answer   string
		notJSON  int
	}{
		{file: "claude-A", p: Claude, session: "1892a3b5", terminal: 1, answer: "Hello from the mock model."},
		{file: "claude-A-pty", p: Claude, session: "6c79b564", terminal: 1, answer: "Hello from the mock model.", notJSON: 1},
		{file: "claude-B", p: Claude, session: "ef06be3b", terminal: 1, answer: answerB,
			calls: []Call{{ID: "toolu_mock_b318a4422536", Kind: "Bash", Command: "sleep 20", Timeout: time.Minute}}},
		{file: "claude-C", p: Claude, session: "57815791", terminal: 0},
		{file: "codex-A", p: Codex, session: "01a2", terminal: 1, answer: "Hello from the mock model."},
		{file: "codex-B", p: Codex, session: "01a2148d", terminal: 1, answer: answerB,
			calls: []Call{{ID: "item_1", Kind: "command_execution", Command: "/bin/bash -lc 'sleep 20'"}}},
		{file: "codex-C-idle20s", p: Codex, session: "01a2148b", terminal: 1, failed: 1},
		{file: "gemini-A", p: Gemini, session: "1fed842b", terminal: 1, answer: "Hello from the mock model."},
		{file: "gemini-B", p: Gemini, session: "28d37d33", terminal: 1, answer: answerB,
			calls: []Call{{ID: "run_shell_command__run_shell_command_1795641236053_0", Kind: "run_shell_command", Command: "sleep 20"}}},
		// Gemini re-sends the same delta with each retry of a stalled stream.
		{file: "gemini-C", p: Gemini, session: "bf19e08c", terminal: 0, answer: "HelloHelloHelloHello"},
		{file: "opencode-A", p: OpenCode, session: "ses_deb5b2020ffe", terminal: 1, answer: "Hello from the mock model.",
			calls: []Call{{ID: "step:msg_214a4e59c001HyslDU7LKVumPZ", Kind: "step", Turn: true}}},
		{file: "opencode-B", p: OpenCode, session: "ses_deb6a5862ffe", terminal: 1, answer: answerB,
			calls: []Call{{ID: "step:msg_21495aad9001CTI7AzvWdD6gg3", Kind: "step", Turn: true}, {ID: "step:msg_21495fd54001pJHP3UhB5kNQm5", Kind: "step", Turn: true}}},
		// opencode sends a new step_start for the same message with each retry.
		{file: "opencode-C", p: OpenCode, session: "ses_", terminal: 0, open: 1, calls: slices.Repeat([]Call{{ID: "step:msg_21495284b001kMQhDXVWJBGJ7H", Kind: "step", Turn: true}}, 3)},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			w := walk(t, tc.p, filepath.Join("testdata", "agents", tc.file+".jsonl"))
			if tc.session == "" || !strings.HasPrefix(w.session, tc.session) {
				t.Errorf("session %q, want prefix %q", w.session, tc.session)
			}
			if !slices.Equal(w.started, tc.calls) {
				t.Errorf("started %+v\nwant    %+v", w.started, tc.calls)
			}
			if w.terminal != tc.terminal || w.failed != tc.failed || len(w.open) != tc.open || w.notJSON != tc.notJSON {
				t.Errorf("terminal %d (want %d), failed %d (want %d), open %v (want %d), not JSON %d (want %d)",
					w.terminal, tc.terminal, w.failed, tc.failed, w.open, tc.open, w.notJSON, tc.notJSON)
			}
			if w.reply.String() != tc.answer {
				t.Errorf("answer %q, want %q", w.reply.String(), tc.answer)
			}
		})
	}
}

// TestClaudeNested checks that a Task call stays open while its subagent's
// own tool calls open and close, and that several blocks in one message
// each count.
func TestClaudeNested(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"type":"assistant","message":{"content":[{"type":"text","text":"delegating"},{"type":"tool_use","id":"task1","name":"Task","input":{"description":"explore","prompt":"look"}}]},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"ls","timeout":5000}},{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/a"}}]},"parent_tool_use_id":"task1"}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b1"},{"type":"tool_result","tool_use_id":"r1"}]},"parent_tool_use_id":"task1"}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"task1","content":[{"type":"text","text":"found"}]}]},"parent_tool_use_id":null}`,
	}
	open := map[string]bool{}
	var after []int
	for _, l := range lines {
		ev := Claude.Parse(Line{Text: []byte(l), Len: int64(len(l)), Newline: true})
		for _, c := range ev.Started {
			open[c.ID] = true
			if c.ID == "b1" && (c.Timeout != 5*time.Second || c.Command != "ls") || c.ID == "r1" && c.Command != "/a" || c.ID == "task1" && c.Command != "explore" {
				t.Errorf("call %+v", c)
			}
		}
		for _, id := range ev.Ended {
			delete(open, id)
		}
		after = append(after, len(open))
	}
	if !slices.Equal(after, []int{1, 3, 1, 0}) {
		t.Errorf("open calls after each line: %v", after)
	}
}

func TestProfileArgs(t *testing.T) {
	t.Parallel()
	d := Direct{Model: "m1", Workspace: "/w", Force: true}
	for _, tc := range []struct {
		p        *Profile
		args     []string
		mode     Mode
		prompt   bool
		headless []string
		resume   []string
	}{
		{Claude, []string{"fix it"}, Interactive, true,
			[]string{"--print", "--output-format", "stream-json", "--verbose", "--model", "m1", "fix it"},
			[]string{"--resume", "S", "--", "go on"}},
		{Claude, []string{"-p", "--allowedTools", "Bash", "Read", "--output-format", "stream-json", "--verbose", "hi"}, Events, true,
			[]string{"--model", "m1", "-p", "--allowedTools", "Bash", "Read", "--output-format", "stream-json", "--verbose", "hi"},
			[]string{"-p", "--allowedTools", "Bash", "Read", "--output-format", "stream-json", "--verbose", "--resume", "S", "--", "go on"}},
		{Claude, []string{"-p", "--allowedTools", "Bash", "hi"}, Bytes, false, nil, nil}, // the variadic flag swallows the prompt, as in claude
		{Codex, []string{"exec", "--json", "--skip-git-repo-check", "hi"}, Events, true,
			[]string{"exec", "--model", "m1", "--cd", "/w", "--json", "--skip-git-repo-check", "hi"},
			[]string{"exec", "--json", "--skip-git-repo-check", "resume", "S", "--", "go on"}},
		{Codex, []string{"hi"}, Interactive, true, []string{"exec", "--json", "--model", "m1", "--cd", "/w", "hi"}, nil},
		{Codex, []string{"login"}, Interactive, true, nil, nil},
		{Gemini, []string{"-p", "hi", "-o", "stream-json", "--yolo"}, Events, true,
			[]string{"--model", "m1", "-p", "hi", "-o", "stream-json", "--yolo"}, []string{"-p", "hi", "-o", "stream-json", "--yolo"}},
		{Gemini, []string{"hi"}, Interactive, true, []string{"--prompt=hi", "--output-format", "stream-json", "--model", "m1"}, nil},
		// The prompt moves into the flag's value; the flags around it stay,
		// and a "--" with nothing after it any more goes.
		{Gemini, []string{"--yolo", "hi", "--sandbox"}, Interactive, true,
			[]string{"--prompt=hi", "--output-format", "stream-json", "--model", "m1", "--yolo", "--sandbox"}, nil},
		{Gemini, []string{"--yolo", "--", "-hi"}, Interactive, true,
			[]string{"--prompt=-hi", "--output-format", "stream-json", "--model", "m1", "--yolo"}, nil},
		{OpenCode, []string{"run", "--format", "json", "hi"}, Events, true,
			[]string{"run", "--model", "m1", "--dir", "/w", "--format", "json", "hi"},
			[]string{"run", "--format", "json", "--session", "S", "--", "go on"}},
		{OpenCode, []string{"run", "hi"}, Bytes, true, nil, nil},
	} {
		if got := tc.p.ModeOf(tc.args); got != tc.mode {
			t.Errorf("%s ModeOf(%q) = %v, want %v", tc.p.Name, tc.args, got, tc.mode)
		}
		if got := tc.p.HasPrompt(tc.args); got != tc.prompt {
			t.Errorf("%s HasPrompt(%q) = %v", tc.p.Name, tc.args, got)
		}
		if tc.headless != nil {
			if got := tc.p.Headless(tc.args, d); !slices.Equal(got, tc.headless) {
				t.Errorf("%s Headless(%q)\n = %q\nwant %q", tc.p.Name, tc.args, got, tc.headless)
			}
		}
		if tc.resume != nil {
			if got := tc.p.Resume(tc.args, "S", "go on"); !slices.Equal(got, tc.resume) {
				t.Errorf("%s Resume(%q)\n = %q\nwant %q", tc.p.Name, tc.args, got, tc.resume)
			}
		}
	}
}

// FuzzProfiles feeds any line to every profile's parser: none may panic,
// and a JSON object is never reported as not JSON.
func FuzzProfiles(f *testing.F) {
	// Seeded from the captures: a fuzz run with no seed would pass having
	// tried nothing like an agent's line.
	files, err := filepath.Glob("testdata/agents/*.jsonl")
	if err != nil || len(files) == 0 {
		f.Fatalf("no captures to seed from: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			f.Add([]byte(strings.TrimSuffix(line, "\n")))
		}
	}
	files, _ = filepath.Glob("testdata/usage/*.jsonl")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			f.Add([]byte(strings.TrimSuffix(line, "\n")))
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		trimmed := strings.TrimSpace(string(line))
		isObject := json.Valid(line) && strings.HasPrefix(trimmed, "{")
		for _, p := range profiles {
			ev := p.Parse(Line{Text: line, Len: int64(len(line)), Newline: true})
			checkUsage(t, p, ev)
			if isObject && ev.NotJSON && !strings.Contains(string(line), `\u`) {
				t.Fatalf("%s: object %q reported as not JSON", p.Name, line)
			}
			if ev.NotJSON && (len(ev.Started) > 0 || len(ev.Ended) > 0 || ev.Terminal) {
				t.Fatalf("%s: a line that is not JSON opened or closed something: %+v", p.Name, ev)
			}
		}
	})
}

// checkUsage: whatever a line says, the usage read from it is counts and a
// cost a total can add (none negative, none NaN), and a message's usage
// names its message.
func checkUsage(t *testing.T, p *Profile, ev Event) {
	t.Helper()
	u := ev.Usage
	if u == nil {
		return
	}
	if u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 || !(u.CostUSD >= 0) || u.CostUSD > 0 && !u.HasCost {
		t.Fatalf("%s: usage %+v", p.Name, *u)
	}
	if ev.UsageScope == UsageMessage && ev.UsageID == "" {
		t.Fatalf("%s: a message's usage without its id", p.Name)
	}
	var tally Tally
	if !tally.Add(ev) || tally.Total() != *u {
		t.Fatalf("%s: a first report of %+v tallied as %+v", p.Name, *u, tally.Total())
	}
}
