package job

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/sessionlog"
)

// TestSessionOutcomes lists a log dir with a session of every outcome,
// run for real where a run makes it, written where it takes another
// process (one still running, one whose wrapper was killed).
func TestSessionOutcomes(t *testing.T) {
	t.Parallel()
	cfg := config.DefaultConfig()
	cfg.LogDir, cfg.IdleTimeout = t.TempDir(), time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := func(j *Job, ctx context.Context) {
		t.Helper()
		if _, err := j.Run(ctx); err != nil && j.Cmd.Path != "/" {
			t.Fatal(err)
		}
	}
	run(fakeJob(t, cfg, "ok", "line", initLine("s-ok"), "line", resultLine), ctx)
	run(fakeJob(t, cfg, "fail", "line", initLine("s-fail"), "exit", "3"), ctx)
	run(fakeJob(t, cfg, "hang", "line", initLine("s-hang"), "hang"), ctx)
	cancelled := fakeJob(t, cfg, "cancel", "line", initLine("s-cancel"), "hang")
	cctx, stop := context.WithCancel(ctx)
	cancelled.OnSession = func(string) { stop() }
	run(cancelled, cctx)
	cantStart := fakeJob(t, cfg, "start")
	cantStart.Cmd.Path = "/"
	run(cantStart, ctx)
	// Another process's attempts: one whose writer still holds its log,
	// one whose wrapper was killed.
	now := time.Now()
	writeLog(t, cfg.LogDir, "s-killed", false, now.Add(time.Millisecond))
	writeLog(t, cfg.LogDir, "s-running", true, now.Add(2*time.Millisecond))

	list := Sessions(cfg.LogDir, 10, nil)
	var got []string
	for _, s := range list {
		status := "-"
		if s.ExitStatus != nil {
			status = fmt.Sprint(*s.ExitStatus)
		}
		got = append(got, fmt.Sprintf("%s %s %s %s %s", s.ID, s.Agent, s.Outcome, status, s.Prompt))
	}
	want := []string{
		"s-running cursor running - written",
		"s-killed cursor unfinished - written",
		" cursor start failed 126 start",
		"s-cancel cursor cancelled 137 cancel",
		"s-hang cursor hung (idle) 124 hang",
		"s-fail cursor failed (status 3) 3 fail",
		"s-ok cursor ok 0 ok",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sessions\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if hangs := sessionlog.Hangs(cfg.LogDir, 10); len(hangs) != 1 || hangs[0].ID != "s-hang" || !hangs[0].Hung {
		t.Errorf("hangs %+v", hangs)
	}
}

// writeLog writes the log of an attempt that started in another process
// and has no exit record; held, its writer is still running (it holds the
// log's lock), else it was killed.
func writeLog(t *testing.T, dir, id string, held bool, start time.Time) {
	path := filepath.Join(dir, fmt.Sprintf("cursor-wrap-%d-%s.jsonl", start.UnixMilli(), id))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if held {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
	} else {
		defer f.Close()
	}
	rec := sessionlog.NewRecorder(nil, sessionlog.SinkTo(f))
	rec.Write(sessionlog.Command{Attempt: 1, Agent: "cursor", Argv: []string{"-p", "written"}})
	rec.Write(sessionlog.Start{Pid: 1})
	f.WriteString(string(sessionlog.AppendEvent(nil, sessionlog.Event{Time: start, RecvTS: start.UnixMilli(), Type: "system", Subtype: "init", Raw: []byte(initLine(id))})))
}
