package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/stream"
)

func TestLaunchFor(t *testing.T) {
	t.Parallel()
	cfg := config.DefaultConfig() // idle 60s, no hard timeout; [mcp] 10s–30m, 1m–4h
	dir := t.TempDir()
	for _, tc := range []struct {
		name       string
		in         runInput
		idle, hard time.Duration
		clamped    []string
		err        string
	}{
		{"defaults", runInput{Prompt: "x"}, time.Minute, 4 * time.Hour, nil, ""},
		{"in bounds", runInput{Prompt: "x", IdleTimeout: "90s", HardTimeout: "1h"}, 90 * time.Second, time.Hour, nil, ""},
		{"at the bounds", runInput{Prompt: "x", IdleTimeout: "10s", HardTimeout: "4h"}, 10 * time.Second, 4 * time.Hour, nil, ""},
		{"below", runInput{Prompt: "x", IdleTimeout: "9999ms", HardTimeout: "1s"}, 10 * time.Second, time.Minute, []string{"mcp.min_idle_timeout", "mcp.min_hard_timeout"}, ""},
		{"above", runInput{Prompt: "x", IdleTimeout: "2h", HardTimeout: "4h1s"}, 30 * time.Minute, 4 * time.Hour, []string{"mcp.max_idle_timeout", "mcp.max_hard_timeout"}, ""},
		{"not a duration", runInput{Prompt: "x", IdleTimeout: "5 minutes"}, 0, 0, nil, `idle_timeout "5 minutes"`},
		{"zero", runInput{Prompt: "x", HardTimeout: "0s"}, 0, 0, nil, `hard_timeout "0s"`},
		{"no prompt", runInput{Prompt: "\n"}, 0, 0, nil, "prompt is required"},
		{"flag-like model", runInput{Prompt: "x", Model: "--yolo"}, 0, 0, nil, `model "--yolo"`},
		{"two-word model", runInput{Prompt: "x", Model: "gpt-5 --force"}, 0, 0, nil, `model "gpt-5 --force"`},
		{"flag-like resume", runInput{Prompt: "x", Resume: "--resume=X"}, 0, 0, nil, `resume "--resume=X"`},
		{"resume with a newline", runInput{Prompt: "x", Resume: "s-1\n--force"}, 0, 0, nil, `resume "s-1\n--force"`},
		{"unknown agent", runInput{Prompt: "x", Agent: "-p"}, 0, 0, nil, `unknown agent "-p"`},
		{"NUL in the prompt", runInput{Prompt: "a\x00b"}, 0, 0, nil, "NUL"},
		{"missing workspace", runInput{Prompt: "x", Workspace: filepath.Join(dir, "nope")}, 0, 0, nil, "workspace"},
	} {
		l, lim, err := launchFor(tc.in, cfg)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want one about %s", tc.name, err, tc.err)
			}
			continue
		}
		var bounds []string
		for _, c := range lim.Clamped {
			bounds = append(bounds, c.Bound)
		}
		if err != nil || lim.Idle != tc.idle || lim.Hard != tc.hard || !slices.Equal(bounds, tc.clamped) || l.Prompt != "x" {
			t.Errorf("%s: %+v, %+v, %v", tc.name, l, lim, err)
		}
	}
	for _, name := range []string{"anthropic/claude-sonnet-4.5", "ses_01JABCDEF", "0f8fad5b-d9cb-469f-a165-70867728950e", "gpt-5.1-codex:high"} {
		if _, _, err := launchFor(runInput{Prompt: "x", Model: name, Resume: name}, cfg); err != nil {
			t.Errorf("%s refused: %v", name, err)
		}
	}
	rel, _ := filepath.Rel(mustWd(t), dir)
	if l, _, err := launchFor(runInput{Prompt: "x", Workspace: rel}, cfg); err != nil || l.Workspace != dir {
		t.Errorf("relative workspace %s: %q, %v", rel, l.Workspace, err)
	}
	cfg.HardTimeout = 2 * time.Minute
	if _, lim, _ := launchFor(runInput{Prompt: "x"}, cfg); lim.Hard != 2*time.Minute {
		t.Errorf("hard_timeout from the config: %v", lim.Hard)
	}
	for _, in := range []runInput{{Prompt: "x", MaxTokens: -1}, {Prompt: "x", MaxCostUSD: -0.5}, {Prompt: "x", MaxCostUSD: math.NaN()}} {
		if _, _, err := launchFor(in, cfg); err == nil {
			t.Errorf("budgets %d, %v accepted", in.MaxTokens, in.MaxCostUSD)
		}
	}
	// A call's budget may be tighter than the config's, never looser.
	cfg.MaxTokens, cfg.MaxCostUSD = 5000, 0.5
	_, lim, err := launchFor(runInput{Prompt: "x", MaxTokens: 9000, MaxCostUSD: 0.25}, cfg)
	if err != nil || lim.MaxTokens != 5000 || lim.MaxCostUSD != 0.25 || len(lim.Clamped) != 1 ||
		lim.Clamped[0] != (config.Clamp{Name: "max_tokens", Requested: "9000", Applied: "5000", Bound: "max_tokens"}) {
		t.Errorf("budgets: %+v, %v", lim, err)
	}
}

func mustWd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestGate(t *testing.T) {
	t.Parallel()
	g := newGate(1)
	ctx := context.Background()
	first, _ := g.enter(ctx, func() { t.Error("waited with room") })
	queued := make(chan struct{}, 3)
	waiting := func() { queued <- struct{}{} }
	admitted := make(chan string, 2)
	release := map[string]chan struct{}{"c": make(chan struct{}), "d": make(chan struct{})}
	done := make(chan struct{}, 2)
	for _, name := range []string{"c", "d"} {
		go func() {
			defer func() { done <- struct{}{} }()
			leave, err := g.enter(ctx, waiting)
			if err != nil {
				t.Error(err)
				return
			}
			admitted <- name
			<-release[name]
			leave()
		}()
		<-queued // c queues before d.
	}
	cctx, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error)
	go func() {
		_, err := g.enter(cctx, waiting)
		gaveUp <- err
	}()
	<-queued
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
	inLine := func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.queue)
	}
	if r, l := g.counts(); r != 1 || l != 1 || inLine() != 2 {
		t.Errorf("%d running of %d, %d waiting", r, l, inLine())
	}
	g.setLimit(2) // Room for one more: the first in line.
	if got := <-admitted; got != "c" || inLine() != 1 {
		t.Errorf("%s was admitted, %d still wait; calls wait in arrival order", got, inLine())
	}
	first()
	if got := <-admitted; got != "d" {
		t.Errorf("got %s", got)
	}
	close(release["c"])
	close(release["d"])
	<-done
	<-done
	if r, _ := g.counts(); r != 0 || inLine() != 0 {
		t.Errorf("after all left: %d running, %d waiting", r, inLine())
	}
}

func TestCapture(t *testing.T) {
	t.Parallel()
	phases := 0
	c := newCapture(stream.Cursor, func() { phases++ })
	for i := range 60 {
		_, _ = c.Write([]byte(`{"type":"thinking","n":` + strconv.Itoa(i) + "}\n"))
	}
	big := `{"type":"big","data":"` + strings.Repeat("x", 2*maxEventBytes) + `"}`
	_, _ = c.Write([]byte(big + "\n"))
	result := `{"type":"result","subtype":"success","result":"done\nfor now"}`
	c.noteEvent(stream.Parse(stream.Line{Text: []byte(result), Len: int64(len(result)), Newline: true}))
	_, _ = c.Write([]byte("unfinished"))
	lines, last := c.result()
	if len(lines) != maxEvents || lines[maxEvents-1].shown(same) != "unfinished" {
		t.Errorf("%d lines, last two %+v", len(lines), lines[len(lines)-2:])
	}
	// What the client gets of the big line: cut, and saying how long it was.
	shown := lines[maxEvents-2].shown(same)
	if !strings.HasSuffix(shown, fmt.Sprintf("… [%d bytes in all]", len(big))) || len(shown) > maxEventBytes+64 {
		t.Errorf("the big line shown as %d bytes ending %q", len(shown), shown[max(0, len(shown)-40):])
	}
	if time.Since(last) > time.Minute {
		t.Errorf("last %v", last)
	}
	if phases != 1 { // Only the result was noted: starting → working.
		t.Errorf("%d phase changes, want 1", phases)
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	tl := newTail(16)
	_, _ = tl.Write([]byte("first line\nsecond\n"))
	if got := tl.String(same); got != "second\n" {
		t.Errorf("tail %q: the cut first line should go", got)
	}
	_, _ = tl.Write([]byte(strings.Repeat("é", 20)))
	if got := tl.String(same); !strings.HasSuffix(got, "éé") || len(got) > 16 || !strings.HasPrefix(got, "\uFFFD") && !strings.HasPrefix(got, "é") {
		t.Errorf("tail %q", got)
	}
	short := newTail(16)
	_, _ = short.Write([]byte("a\nb"))
	if got := short.String(same); got != "a\nb" {
		t.Errorf("uncut tail %q", got)
	}
}

// same is a redaction that masks nothing.
func same(s string) string { return s }

// TestJournal: a run remembers its last maxNews notes whatever the agent
// does, and says how many it forgot.
func TestJournal(t *testing.T) {
	t.Parallel()
	var j journal
	now := time.Now()
	for i := range 250 {
		j.started(toolNote{CallID: strconv.Itoa(i), Kind: "shellToolCall", Command: "cmd " + strconv.Itoa(i)}, now)
	}
	if len(j.open) != maxNews {
		t.Errorf("%d open calls remembered", len(j.open))
	}
	j.ended("249", now) // Started past the bound: its command is not known.
	j.ended("0", now)
	n := j.take()
	if len(n.ToolCalls) != maxNews || n.Omitted != 252-maxNews || n.ToolCalls[maxNews-1] != (toolNote{Event: "ended", CallID: "0", Kind: "shellToolCall", Command: "cmd 0", At: n.ToolCalls[maxNews-1].At}) {
		t.Errorf("%d notes, %d omitted, last %+v", len(n.ToolCalls), n.Omitted, n.ToolCalls[len(n.ToolCalls)-1])
	}
	if got := n.ToolCalls[maxNews-2]; got.Command != "" || got.CallID != "249" {
		t.Errorf("end of an unknown call: %+v", got)
	}
	if j.warned() {
		t.Error("warned with no warning")
	}
	j.add(note{warning: "agent hang imminent"})
	if !j.warned() {
		t.Error("a warning not reported")
	}
	if n := j.take(); len(n.ToolCalls) != 0 || !slices.Equal(n.Warnings, []string{"agent hang imminent"}) || n.Omitted != 0 || j.warned() {
		t.Errorf("second take %+v", n)
	}
	if s := (news{ToolCalls: []toolNote{{Event: "started", Kind: "shellToolCall", Command: "npm test"}}, Warnings: []string{"w"}}).String(); s != `started shellToolCall "npm test"; WARNING: w` {
		t.Errorf("news text %q", s)
	}
}

func TestCutBytes(t *testing.T) {
	t.Parallel()
	if got := cutBytes("aé", 2); got != "a" {
		t.Errorf("cutBytes %q", got)
	}
}

// TestExitMessage: an agent that exited without an answer is said so with
// its status, or the signal that killed it by its name ("killed by
// killed" was a syscall.Signal printed with %s).
func TestExitMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		out  ptyproxy.Outcome
		end  job.End
		want string
	}{
		{ptyproxy.Outcome{ExitCode: -1, ExitSignal: syscall.SIGKILL}, job.End{Status: 137, Signal: "SIGKILL"},
			`The agent was killed by SIGKILL before it gave a result. Its last line on stderr: "oom".`},
		{ptyproxy.Outcome{ExitCode: 3}, job.End{Status: 3}, `The agent exited with status 3 without giving a result. Its last line on stderr: "oom".`},
		{ptyproxy.Outcome{Done: true, ExitCode: 2}, job.End{Status: 2}, `The agent answered but exited with status 2. Its last line on stderr: "oom".`},
	} {
		if got := exitMessage(tc.out, tc.end, "oom\n"); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.out, got, tc.want)
		}
	}
}
