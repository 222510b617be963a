package job

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/notify"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/ptyproxy/sessionlog/timeline"
	"cursor-wrap/stream"
)

// agentBin is the fake agent, built without -race: this test binary
// re-executed under -race can take seconds to print its first line.
var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "job-test-")
	if err == nil {
		agentBin = filepath.Join(dir, "fakeagent")
		var out []byte
		if out, err = osexec.Command("go", "build", "-o", agentBin, "cursor-wrap/scripts/fakeagent").CombinedOutput(); err != nil {
			err = fmt.Errorf("building the fake agent: %v\n%s", err, out)
		}
	}
	if err == nil {
		err = ptyproxy.Init()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fakeJob is a job that runs the fake agent with steps, prompt as its
// prompt, under cfg.
func fakeJob(t *testing.T, cfg config.Config, prompt string, steps ...string) *Job {
	encoded, _ := json.Marshal(steps)
	env := append(os.Environ(), fakeagent.StepsEnv+"="+string(encoded))
	cmd := Command{Profile: stream.Cursor, Path: agentBin, Args: []string{"-p", "--output-format", "stream-json", prompt}, Env: env, Mode: stream.Events}
	return &Job{Cmd: cmd, Live: config.NewLive(cfg), IO: ptyproxy.IO{Stdout: io.Discard, Stderr: io.Discard}}
}

func initLine(id string) string {
	return `{"type":"system","subtype":"init","session_id":"` + id + `"}`
}

const resultLine = `{"type":"result","subtype":"success"}`

// TestNotifyEvents runs a job that warns, hangs, restarts and finishes,
// then reports an agent error: each event reaches the webhook once, in
// order, and each delivery is recorded in its attempt's log.
func TestNotifyEvents(t *testing.T) {
	t.Parallel()
	bodies := make(chan notify.Message, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m notify.Message
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			t.Errorf("body: %v", err)
		}
		bodies <- m
	}))
	defer srv.Close()
	cfg := config.DefaultConfig()
	cfg.LogDir, cfg.Notify, cfg.NotifyOn = t.TempDir(), []string{srv.URL + "/topic"}, notify.Names(notify.Events)
	cfg.IdleTimeout, cfg.WarnBefore, cfg.Restarts = time.Second, 500*time.Millisecond, 1
	marker := filepath.Join(t.TempDir(), "hung")
	j := fakeJob(t, cfg, "fix the flaky test", "line", initLine("s-1"), "hang-once", marker, "line", resultLine)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := j.Run(ctx)
	if err != nil || res.Attempts != 2 || res.End.Status != 0 {
		t.Fatalf("run: %+v, %v", res, err)
	}
	// The run is told whole: its attempts, the restart's cause, the time
	// from its first attempt's start.
	if sum := j.Cmd.Summary(res); !regexp.MustCompile(`^session s-1 finished \(exit 0\) after [\d.]+m?s over 2 attempts \(attempt 1 hung \(idle\) and was killed after [\d.]+m?s\); `).MatchString(sum) {
		t.Errorf("summary %q", sum)
	}
	res.AgentError = &stream.AgentError{Kind: stream.RateLimit, Message: "the agent's provider is rate-limiting requests"}
	j.notifyError(res)
	var got []notify.Message
	for range 5 {
		select {
		case m := <-bodies:
			got = append(got, m)
		case <-ctx.Done():
			t.Fatalf("got %d notifications: %+v", len(got), got)
		}
	}
	// Deliveries run side by side; the events' order is their time's.
	slices.SortFunc(got, func(a, b notify.Message) int { return a.Time.Compare(b.Time) })
	var events []notify.Event
	for _, m := range got {
		events = append(events, m.Event)
		if m.Agent != "cursor" || m.SessionID != "s-1" || m.Prompt != "fix the flaky test" || m.Log == "" ||
			!strings.HasPrefix(m.Resume, "cursor-wrap --agent cursor -- ") || !strings.HasSuffix(m.Resume, " --resume s-1 -- continue") {
			t.Errorf("%s message %+v", m.Event, m)
		}
	}
	if want := []notify.Event{notify.Warn, notify.Hang, notify.Restart, notify.Finish, notify.Error}; !slices.Equal(events, want) {
		t.Fatalf("events %v, want %v", events, want)
	}
	// The timer's figures move with the scheduler.
	for i, want := range []string{`^no output for [45]\d\dms; the agent will be stopped in [45]\d\dms unless it speaks$`,
		`^no output for 1(\.\d)?s with no tool call running \(idle timeout 1s\)`,
		`^the last attempt hung \(idle\); resuming session s-1 with "continue"$`,
		`^finished \(exit 0\) after [\d.]+m?s over 2 attempts \(attempt 1 hung \(idle\) and was killed after [\d.]+m?s\)$`, `^rate_limit: the agent's provider is rate-limiting requests$`} {
		if !regexp.MustCompile(want).MatchString(got[i].Reason) {
			t.Errorf("%s reason %q, want %s", got[i].Event, got[i].Reason, want)
		}
	}
	// The first three tell of attempt 1; the records follow the deliveries
	// into its log.
	if got[0].Log != got[2].Log || got[3].Log != res.LogPath || got[0].Log == res.LogPath {
		t.Errorf("logs %q", []string{got[0].Log, got[1].Log, got[2].Log, got[3].Log})
	}
	j.sender().Wait()
	notes := func(path string) (sent []string) {
		tl, err := timeline.Read(path, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range tl.Notes {
			if n.What == sessionlog.MsgNotifySent {
				sent = append(sent, n.Detail)
			}
		}
		return sent
	}
	target := srv.URL + "/…"
	// Deliveries run side by side: each is recorded as it ends, in any order.
	if sent := notes(got[0].Log); !slices.Equal(slices.Sorted(slices.Values(sent)), []string{"hang to " + target, "restart to " + target, "warn to " + target}) {
		t.Errorf("attempt 1 log notes %q", sent)
	}
	if sent := notes(res.LogPath); !slices.Equal(slices.Sorted(slices.Values(sent)), []string{"error to " + target, "finish to " + target}) {
		t.Errorf("attempt 2 log notes %q", sent)
	}
}
