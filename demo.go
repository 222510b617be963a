package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/term"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

//go:embed stream/testdata/normal.jsonl
var demoTranscript []byte

// demo runs the wrapper against its fake agent twice, a normal session and
// a hang, and narrates on stderr what it saw and decided, with timings.
func demo(args []string) int {
	if len(args) > 0 {
		return fail(exitUsage, "usage: cursor-wrap demo")
	}
	self, err := os.Executable()
	if err != nil {
		return fail(exitWrapper, "%v", err)
	}
	if err := ptyproxy.Init(); err != nil {
		return fail(exitWrapper, "%v", err)
	}
	dir, err := os.MkdirTemp("", "cursor-wrap-demo-")
	if err != nil {
		return fail(exitWrapper, "%v", err)
	}
	defer os.RemoveAll(dir)
	transcript := filepath.Join(dir, "normal.jsonl")
	if err := os.WriteFile(transcript, demoTranscript, 0o600); err != nil {
		return fail(exitWrapper, "%v", err)
	}
	// The forwarded stream goes to stdout only where it does not bury the
	// narration: `cursor-wrap demo > stream.jsonl` keeps it.
	var stdout io.Writer = os.Stdout
	if term.IsTerminal(1) {
		stdout = io.Discard
	}
	say := func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }

	say("cursor-wrap demo: two runs of a fake cursor-agent under the wrapper.")
	say("Session logs go to %s (removed at the end).", dir)
	say("")
	say("1. A normal session: a cursor-agent transcript replayed at 10x speed.")
	th := watchdog.DefaultThresholds()
	th.ExitGrace = time.Second
	out1 := demoRun(self, dir, stdout, th, say, "replay", transcript, "10")
	say("   => exit status %d, %d lines forwarded byte for byte, %d tool calls, longest silence %s.",
		out1.Status(), out1.Lines, out1.ToolCalls, out1.LongestSilence.Round(time.Millisecond))
	say("")

	th.IdleTimeout, th.ToolGrace = 2*time.Second, time.Second
	say("2. A hang. A tool call declares 3s and runs 2.5s in silence: the wrapper waits,")
	say("   because a tool is running. Then the agent stops talking with nothing running.")
	say("   Thresholds: idle %s, tool grace %s, kill grace 1s.", th.IdleTimeout, th.ToolGrace)
	const sid = "7d3f0c2e-demo-4b1a-9e55-hang00000001"
	out2 := demoRun(self, dir, stdout, th, say,
		"line", `{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/work","session_id":"`+sid+`","model":"Auto","permissionMode":"default"}`,
		"line", `{"type":"tool_call","subtype":"started","call_id":"toolu_demo_1","tool_call":{"shellToolCall":{"args":{"command":"make integration","timeout":3000}}},"session_id":"`+sid+`"}`,
		"sleep", "2500ms",
		"line", `{"type":"tool_call","subtype":"completed","call_id":"toolu_demo_1","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0}}}},"session_id":"`+sid+`"}`,
		"setsid-child", "hang")
	say("   => exit status %d (hang killed); the agent's tool process in its own session was killed too.", out2.Status())
	return 0
}

// demoRun runs one attempt of the fake agent and narrates it.
func demoRun(self, dir string, stdout io.Writer, th watchdog.Thresholds, say func(string, ...any), steps ...string) ptyproxy.Outcome {
	n := &narrator{say: say, start: time.Now(), idle: th.IdleTimeout}
	logFile := sessionlog.Open(dir, time.Now(), func(err error) { say("   (session log disabled: %v)", err) })
	log := slog.New(teeHandler{slog.NewJSONHandler(logFile, &slog.HandlerOptions{Level: slog.LevelDebug}), n})
	events := io.MultiWriter(logFile, n)
	out, err := ptyproxy.Run(context.Background(), ptyproxy.Options{
		Path:            self,
		Args:            append([]string{fakeagent.Subcommand}, steps...),
		Env:             os.Environ(),
		Stdout:          stdout,
		Stderr:          os.Stderr,
		Parse:           stream.Parse,
		Thresholds:      th,
		Tick:            5 * time.Second,
		KillGrace:       time.Second,
		Log:             log,
		Events:          events,
		OnSession:       logFile.Rename,
		ClaimAllOrphans: true,
	})
	logFile.Close()
	if err != nil {
		say("   could not start the fake agent: %v", err)
	}
	say("   Log: %s", filepath.Base(logFile.Path()))
	return out
}

// narrator turns session log records into sentences.
type narrator struct {
	say      func(string, ...any)
	start    time.Time
	idle     time.Duration
	thinking int
	lastOut  time.Time
	hangAt   time.Time
}

func (n *narrator) at(t time.Time) string {
	return fmt.Sprintf("+%5.2fs", t.Sub(n.start).Seconds())
}

// Write takes a batch of event records, one JSON line each.
func (n *narrator) Write(p []byte) (int, error) {
	for line := range bytes.Lines(p) {
		var rec struct {
			Time time.Time
			Raw  string
		}
		if json.Unmarshal(line, &rec) == nil {
			n.event(rec.Time, []byte(rec.Raw))
		}
	}
	return len(p), nil
}

// event narrates one line of the agent's output.
func (n *narrator) event(at time.Time, raw []byte) {
	n.lastOut = at
	ev := stream.Parse(stream.Line{Text: raw, Len: int64(len(raw)), Newline: true})
	switch {
	case ev.Type == "thinking":
		n.thinking++
		return
	case n.thinking > 0:
		n.say("   %s  thinking (%d deltas)", n.at(at), n.thinking)
		n.thinking = 0
	}
	switch {
	case len(ev.Started) > 0:
		c := ev.Started[0]
		declared := "no timeout declared"
		if c.Timeout > 0 {
			declared = "declares " + c.Timeout.String()
		}
		n.say("   %s  tool call started: %s %q, %s", n.at(at), c.Kind, c.Command, declared)
	case len(ev.Ended) > 0:
		n.say("   %s  tool call completed", n.at(at))
	case ev.Type == "system":
		n.say("   %s  %s/%s, session %s", n.at(at), ev.Type, ev.Subtype, ev.SessionID)
	case ev.Type == "result":
		n.say("   %s  result: the answer is complete", n.at(at))
	case ev.Type == "assistant":
		n.say("   %s  assistant message", n.at(at))
	}
}

// record narrates the wrapper's decisions from their log records.
func (n *narrator) record(r slog.Record) {
	attrs := map[string]slog.Value{}
	r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value; return true })
	switch r.Message {
	case "verdict":
		if to := attrs["to"].String(); to == "waiting" && n.hangAt.IsZero() {
			n.say("   %s  a tool is running: silence is expected (verdict: waiting)", n.at(r.Time))
		}
	case "hang_detected":
		n.hangAt = r.Time
		late := r.Time.Sub(n.lastOut.Add(n.idle))
		n.say("   %s  HANG declared: no output for %s with no tool call running (%s after the threshold)",
			n.at(r.Time), r.Time.Sub(n.lastOut).Round(time.Millisecond), late.Round(100*time.Microsecond))
	case "kill":
		n.say("   %s  sent %s to %v (negative: the whole process group)", n.at(r.Time), attrs["signal"], attrs["pids"])
	case "agent_exited":
		line := fmt.Sprintf("   %s  agent exited (code %s", n.at(r.Time), attrs["code"])
		if sig, ok := attrs["signal"]; ok {
			line += ", " + sig.String()
		}
		line += ")"
		if !n.hangAt.IsZero() {
			line += fmt.Sprintf(", %s after the hang was declared", r.Time.Sub(n.hangAt).Round(100*time.Microsecond))
		}
		n.say("%s", line)
	}
}

// teeHandler sends each record to the log file and to the narrator.
type teeHandler struct {
	slog.Handler
	n *narrator
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	t.n.record(r)
	return t.Handler.Handle(ctx, r)
}
