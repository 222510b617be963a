package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/stream"
)

func TestLaunchFor(t *testing.T) {
	t.Parallel()
	cfg := job.DefaultConfig() // idle 60s, no hard timeout; [mcp] 10s–30m, 1m–4h
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
	rel, _ := filepath.Rel(mustWd(t), dir)
	if l, _, err := launchFor(runInput{Prompt: "x", Workspace: rel}, cfg); err != nil || l.Workspace != dir {
		t.Errorf("relative workspace %s: %q, %v", rel, l.Workspace, err)
	}
	cfg.HardTimeout = 2 * time.Minute
	if _, lim, _ := launchFor(runInput{Prompt: "x"}, cfg); lim.Hard != 2*time.Minute {
		t.Errorf("hard_timeout from the config: %v", lim.Hard)
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
	c := newCapture(func() { phases++ })
	for i := range 60 {
		_, _ = c.Write([]byte(`{"type":"thinking","n":` + strconv.Itoa(i) + "}\n"))
	}
	big := `{"type":"big","data":"` + strings.Repeat("x", 2*maxEventBytes) + `"}`
	_, _ = c.Write([]byte(big + "\n"))
	result := `{"type":"result","subtype":"success","result":"done\nfor now"}`
	c.noteEvent(stream.Parse(stream.Line{Text: []byte(result), Len: int64(len(result)), Newline: true}))
	_, _ = c.Write([]byte("unfinished"))
	lines, last := c.result()
	if len(lines) != maxEvents || lines[maxEvents-1] != "unfinished" || !strings.HasSuffix(lines[maxEvents-2], fmt.Sprintf("… [%d bytes in all]", len(big))) {
		t.Errorf("%d lines, last two %q", len(lines), lines[len(lines)-2:])
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
	tl := &tail{max: 16}
	_, _ = tl.Write([]byte("first line\nsecond\n"))
	if got := tl.String(); got != "second\n" {
		t.Errorf("tail %q: the cut first line should go", got)
	}
	_, _ = tl.Write([]byte(strings.Repeat("é", 20)))
	if got := tl.String(); !strings.HasSuffix(got, "éé") || len(got) > 16 || !strings.HasPrefix(got, "\uFFFD") && !strings.HasPrefix(got, "é") {
		t.Errorf("tail %q", got)
	}
	short := &tail{max: 16}
	_, _ = short.Write([]byte("a\nb"))
	if got := short.String(); got != "a\nb" {
		t.Errorf("uncut tail %q", got)
	}
}
