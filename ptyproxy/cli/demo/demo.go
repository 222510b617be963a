// Package demo is the command `cursor-wrap demo`: the wrapper against its
// fake agent twice, a normal session and a hang, narrated; and
// `--install-agent`/`--remove-agent`, which put the demo agent (a script
// that runs this binary as `fakeagent.Demo`) where the wrapper finds it
// while no cursor-agent is installed, and take it away.
package demo

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/words"
)

// Command is `cursor-wrap demo`, which replays transcript (a cursor-agent
// session, one stream-json line each) in its normal run. This binary is
// its fake agent: main runs fakeagent.Main when its arguments ask for it.
func Command(transcript []byte) cli.Command {
	return cli.Command{
		Name: "demo", Args: "[--install-agent | --remove-agent]",
		Summary: "watch a normal run and a hang; --install-agent puts a demo agent behind cursor-agent",
		Flags:   cli.Declares(declare),
		Run:     func(env *cli.Env, args []string) int { return run(env, transcript, args) },
	}
}

// options are the flags of demo.
type options struct{ install, remove bool }

// declare declares the flags of demo.
func declare(fs *flag.FlagSet) *options {
	var o options
	fs.BoolVar(&o.install, "install-agent", false, "put a demo agent behind cursor-agent, for as long as no cursor-agent is installed: it answers any prompt (hang and ask show a hang and a question), changes nothing, and says it is the demo")
	fs.BoolVar(&o.remove, "remove-agent", false, "remove the demo agent and what --install-agent made for it")
	return &o
}

// run runs the wrapper against its fake agent twice, a normal session and
// a hang, and narrates on stderr what it saw and decided, with timings;
// or installs or removes the demo agent.
func run(env *cli.Env, demoTranscript []byte, args []string) int {
	o, _, status, done := cli.ParseCommand(env, "demo", args, declare, true)
	switch {
	case done:
		return status
	case o.install && o.remove:
		return env.Fail(job.ExitUsage, "demo: --install-agent or --remove-agent, not both")
	case o.install:
		return installAgent(env)
	case o.remove:
		return removeAgent(env)
	}
	self, err := os.Executable()
	if err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	if err := ptyproxy.Init(); err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	dir, err := os.MkdirTemp("", "cursor-wrap-demo-")
	if err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	// The logs stay, for inspect; the transcript replayed is no log, and
	// is not put among them.
	f, err := os.CreateTemp("", "cursor-wrap-demo-*.jsonl")
	if err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	transcript := f.Name()
	defer os.Remove(transcript)
	_, err = f.Write(demoTranscript)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	// The forwarded stream goes to stdout only where it does not bury the
	// narration: `cursor-wrap demo > stream.jsonl` keeps it.
	stdout := env.Stdout
	if cli.IsTerminal(env.Stdout) {
		stdout = io.Discard
	}
	say := func(format string, a ...any) { fmt.Fprintf(env.Stderr, format+"\n", a...) }

	say("cursor-wrap demo: two runs of a fake cursor-agent under the wrapper.")
	say("Session logs go to %s, and stay there for inspect.", dir)
	say("")
	say("1. A normal session: a cursor-agent transcript replayed at 10x speed.")
	cfg := config.DefaultConfig()
	cfg.LogDir, cfg.ExitGrace, cfg.KillGrace, cfg.LogKeep = dir, time.Second, time.Second, 0
	out1, status1 := demoRun(self, cfg, stdout, env.Stderr, say, "replay", transcript, "10")
	say("   => exit status %d, %d lines forwarded byte for byte, %d tool calls, longest silence %s.",
		status1, out1.Lines, out1.ToolCalls, words.Duration(out1.LongestSilence))
	say("")

	cfg.IdleTimeout, cfg.ToolGrace = 2*time.Second, time.Second
	say("2. A hang. A tool call declares 3s and runs 2.5s in silence: the wrapper waits,")
	say("   because a tool is running. Then the agent stops talking with nothing running.")
	say("   Thresholds: idle %s, tool grace %s, kill grace %s.", cfg.IdleTimeout, cfg.ToolGrace, cfg.KillGrace)
	const sid = "7d3f0c2e-demo-4b1a-9e55-hang00000001"
	_, status2 := demoRun(self, cfg, stdout, env.Stderr, say,
		"line", `{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/work","session_id":"`+sid+`","model":"Auto","permissionMode":"default"}`,
		"line", `{"type":"tool_call","subtype":"started","call_id":"toolu_demo_1","tool_call":{"shellToolCall":{"args":{"command":"make integration","timeout":3000}}},"session_id":"`+sid+`"}`,
		"sleep", "2500ms",
		"line", `{"type":"tool_call","subtype":"completed","call_id":"toolu_demo_1","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0}}}},"session_id":"`+sid+`"}`,
		"tool-child", "hang")
	say("   => exit status %d (hang killed); the agent's tool process in its own session was killed too.", status2)
	say("")
	say("See what the wrapper recorded: cursor-wrap inspect --log-dir %s --last-hang", dir)
	say("(from a checkout: go run . inspect …); remove them with: rm -r %s", dir)
	return 0
}

// demoRun runs the fake agent once through the job, narrates it, and
// returns how it ended and the wrapper's exit status for it.
func demoRun(self string, cfg config.Config, stdout, stderr io.Writer, say func(string, ...any), steps ...string) (job.Result, int) {
	n := &narrator{say: say, start: time.Now(), idle: cfg.IdleTimeout}
	j := &job.Job{
		Cmd: job.Command{Profile: stream.Cursor, Path: self, Args: append([]string{fakeagent.Subcommand}, steps...),
			Env: os.Environ(), Mode: stream.Events, Direct: true},
		Live: config.NewLive(cfg), IO: ptyproxy.IO{Stdout: stdout, Stderr: stderr}, Tap: n, NoRestart: true,
	}
	res, err := j.Run(context.Background())
	if err != nil {
		say("   could not start the fake agent: %v", err)
	}
	say("   Log: %s", res.LogPath)
	return res, res.End.Status
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
	return fmt.Sprintf("%8s", words.Offset(t.Sub(n.start))) // aligned up to +99.999s
}

// Write takes session log records, one JSON line each.
func (n *narrator) Write(m redact.Masked) {
	for line := range bytes.Lines(m.Bytes()) {
		h, rec, err := sessionlog.Decode(line)
		if err != nil {
			continue
		}
		if ev, ok := rec.(*sessionlog.EventLine); ok {
			n.event(h.Time, ev.Text())
			continue
		}
		n.record(h.Time, rec)
	}
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
func (n *narrator) record(at time.Time, rec sessionlog.Record) {
	switch r := rec.(type) {
	case *sessionlog.VerdictChange:
		if r.To == "waiting" && n.hangAt.IsZero() {
			n.say("   %s  a tool is running: silence is expected (verdict: waiting)", n.at(at))
		}
	case *sessionlog.HangDetected:
		n.hangAt = at
		late := at.Sub(n.lastOut.Add(n.idle))
		n.say("   %s  HANG declared: no output for %s with no tool call running (%s after the threshold)",
			n.at(at), words.Duration(at.Sub(n.lastOut)), words.Duration(late))
	case *sessionlog.Kill:
		n.say("   %s  sent %s to %s", n.at(at), r.Signal, pidsWords(r.Pids))
	case *sessionlog.AgentExited:
		line := fmt.Sprintf("   %s  agent exited (code %d", n.at(at), r.Code)
		if r.Signal != "" {
			line += ", " + r.Signal
		}
		line += ")"
		if !n.hangAt.IsZero() {
			line += fmt.Sprintf(", %s after the hang was declared", words.Duration(at.Sub(n.hangAt)))
		}
		n.say("%s", line)
	}
}

// pidsWords names the targets of a kill: a negative pid is a process
// group, as kill(2) takes it.
func pidsWords(pids []int) string {
	words := make([]string, len(pids))
	for i, pid := range pids {
		words[i] = fmt.Sprintf("process %d", pid)
		if pid < 0 {
			words[i] = fmt.Sprintf("the process group %d", -pid)
		}
	}
	return strings.Join(words, " and ")
}
