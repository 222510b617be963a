package e2e

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/notify"
)

// hook is a webhook on 127.0.0.1 that keeps what it receives.
type hook struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newHook(t *testing.T) *hook {
	h := &hook{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, body)
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hook) received() [][]byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bodies
}

// TestNotifyWebhook runs a hang, a restart and a success with a webhook
// that asks for hang, restart and finish: it receives exactly those, each
// with the run's fields, and no secret of the agent's arguments,
// environment or prompt; the webhook's own secret path reaches no log.
func TestNotifyWebhook(t *testing.T) {
	t.Parallel()
	h := newHook(t)
	secrets := []string{"key-live-argument-123456", "sk-proj-from-the-env-0123456789", "sk-ant-in-the-prompt-987654321"}
	marker := filepath.Join(t.TempDir(), "hung")
	r := runWrapper(t, []string{"OPENAI_API_KEY=" + secrets[1], "CURSOR_WRAP_NOTIFY=" + h.URL + "/services/T0/B0/hook-secret",
		steps("line", initLine, "hang-once", marker, "line", resultLine)}, nil, "--notify-on", "hang,restart,finish",
		"--idle-timeout", "2s", "--restarts", "1", "--", "--api-key", secrets[0], "-p", "fix the build, the key is "+secrets[2])
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var events []string
	cwd, _ := os.Getwd()
	for _, b := range h.received() {
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("secret %s sent: %s", s, b)
			}
		}
		var m struct {
			Text, Content, Event, Agent, Prompt, Cwd, Reason, Log, Resume string
			SessionID                                                     string `json:"session_id"`
			Time                                                          time.Time
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("body %s: %v", b, err)
		}
		// Deliveries run side by side; the events' order is their time's.
		events = append(events, m.Time.UTC().Format("15:04:05.000000000")+" "+m.Event)
		if m.Agent != "cursor" || m.SessionID != "s-1" || m.Prompt != "fix the build, the key is sk-[REDACTED]" || m.Cwd != cwd ||
			m.Reason == "" || !strings.HasPrefix(m.Log, r.logDir) || m.Text == "" || m.Content != m.Text ||
			!strings.HasPrefix(m.Resume, "cursor-wrap --agent cursor -- ") || !strings.Contains(m.Resume, "--api-key [REDACTED]") ||
			!strings.HasSuffix(m.Resume, "--resume s-1 -- continue") {
			t.Errorf("%s notification: %s", m.Event, b)
		}
	}
	slices.Sort(events)
	for i := range events {
		_, events[i], _ = strings.Cut(events[i], " ")
	}
	if strings.Join(events, ",") != "hang,restart,finish" {
		t.Fatalf("events %q, want hang, restart, finish", events)
	}
	// Each delivery is recorded in its attempt's log, as it ends; inspect
	// shows it.
	target := h.URL + "/…"
	var sent []string
	for _, rec := range readLogs[logRecord](t, r.logDir) {
		if rec.Msg == "notify_sent" {
			sent = append(sent, rec.Event+" to "+rec.Target)
		}
	}
	slices.Sort(sent)
	if strings.Join(sent, "; ") != "finish to "+target+"; hang to "+target+"; restart to "+target {
		t.Errorf("notify_sent records %q", sent)
	}
	logs, _ := filepath.Glob(filepath.Join(r.logDir, "*.jsonl"))
	for _, l := range append(logs, "") {
		data := r.stderr
		if l != "" {
			data, _ = os.ReadFile(l)
		}
		if bytes.Contains(data, []byte("hook-secret")) {
			t.Errorf("the webhook's secret is in %s", cmp.Or(l, "stderr"))
		}
	}
	out, err := exec.Command(wrapperBin, "inspect", "--last", "--log-dir", r.logDir).Output()
	if err != nil || !regexp.MustCompile(`note +\+[0-9.]+s notify_sent: finish to `+regexp.QuoteMeta(target)).Match(out) {
		t.Errorf("inspect: %v\n%s", err, out)
	}
}

// TestNotifyCostsNothing: a webhook that takes the request and never
// answers, or one that refuses, leaves the exit status as it is and costs
// the end of the run at most notify.AnswerWait (100ms) and no retry's
// pause. Measured by the wrapper's own clock, from the exit record to the
// delivery's record that the end of the run writes before it returns.
func TestNotifyCostsNothing(t *testing.T) {
	t.Parallel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := "http://" + ln.Addr().String() + "/hook"
	ln.Close()
	stop := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-stop }))
	defer hanging.Close()
	defer close(stop)
	cost := func(target, record string) (time.Duration, logRecord) {
		t.Helper()
		r := runWrapper(t, nil, nil, "--idle-timeout", "300ms", "--notify", target, "--", "line", initLine, "hang")
		if r.code != 124 {
			t.Fatalf("%s: exit %d\n%s", target, r.code, r.stderr)
		}
		recs := readLogs[logRecord](t, r.logDir)
		exit, _ := find(recs, "exit")
		rec, ok := find(recs, record)
		if !ok || rec.Event != "hang" {
			t.Errorf("%s: %s record %+v", target, record, rec)
		}
		return rec.Time.Sub(exit.Time), rec
	}
	slow, slowRec := cost(hanging.URL, "notify_sent")
	down, downRec := cost(refused, "notify_failed")
	t.Logf("from the exit record to the delivery's: %v with a server that never answers, %v with one that refuses", slow, down)
	// Waiting for the request to be sent (notify.ExitWait, 1s) rather than
	// for its answer would cost a second; so would the retry's pause.
	if slow < notify.AnswerWait || slow >= notify.ExitWait {
		t.Errorf("a server that never answers cost %v, want %v", slow, notify.AnswerWait)
	}
	if down < 0 || down >= notify.ExitWait/2 {
		t.Errorf("a server that refuses cost %v, want no wait", down)
	}
	if slowRec.Status != 0 {
		t.Errorf("never answered: %+v", slowRec)
	}
	if !strings.Contains(downRec.Error, "connection refused; the run ended before the retry") {
		t.Errorf("refused: %+v", downRec)
	}
}

// TestNotifyDesktop shows the desktop notification through notify-send,
// a fake one on PATH; without one, one stderr line says so, whatever the
// number of events, and the exit status is the run's.
func TestNotifyDesktop(t *testing.T) {
	t.Parallel()
	bin, out := t.TempDir(), filepath.Join(t.TempDir(), "notify-send.args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + out + "'\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runWrapper(t, []string{"PATH=" + bin + ":" + os.Getenv("PATH"), steps("line", initLine, "line", resultLine)}, nil, "--notify", "desktop", "--notify-on", "finish", "--", "-p", "say hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	args, _ := os.ReadFile(out)
	if !regexp.MustCompile(`^--app-name=cursor-wrap\ncursor-wrap: cursor run ended\ncursor-wrap: cursor run ended: finished \(exit 0\) after [0-9.]+m?s; usage: not reported\. Session s-1 in \S+, prompt "say hi"\n$`).Match(args) {
		t.Errorf("notify-send got %q", args)
	}

	r = runWrapper(t, []string{"PATH=" + t.TempDir()}, nil, "--notify", "desktop", "--notify-on", "hang,finish", "--idle-timeout", "300ms", "--", "line", initLine, "hang")
	if r.code != 124 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := bytes.Count(r.stderr, []byte("cursor-wrap: warning: desktop notifications skipped: no desktop notifier: neither notify-send nor osascript is on PATH\n")); n != 1 {
		t.Errorf("%d lines say the desktop is skipped:\n%s", n, r.stderr)
	}
	failed := 0
	for _, rec := range readLogs[logRecord](t, r.logDir) {
		if rec.Msg == "notify_failed" && rec.Target == "desktop" {
			failed++
		}
	}
	if failed != 2 {
		t.Errorf("%d notify_failed records, want 2 (hang, finish)", failed)
	}
}

// TestNotifyRedirectNotFollowed: a webhook that answers with a redirect to
// another host is not followed. The body carries the prompt, the working
// directory and the resume command, and the request would name the secret
// webhook URL as its Referer: the other host gets nothing, and the log says
// the delivery failed, with the status, instead of "sent" to the first host.
func TestNotifyRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	elsewhere := newHook(t)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/collect", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)
	r := runWrapper(t, []string{"CURSOR_WRAP_NOTIFY=" + redirector.URL + "/hooks/secret-token-abcdef",
		steps("line", initLine, "line", resultLine)}, nil, "--notify-on", "finish", "--", "-p", "say hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := elsewhere.received(); len(got) != 0 {
		t.Errorf("the redirect's target received %d requests: %s", len(got), got[0])
	}
	var outcomes []string
	for _, rec := range readLogs[logRecord](t, r.logDir) {
		if strings.HasPrefix(rec.Msg, "notify_") {
			outcomes = append(outcomes, rec.Msg+" "+rec.Error)
		}
	}
	if len(outcomes) != 1 || !strings.HasPrefix(outcomes[0], "notify_failed HTTP 307: ") || !strings.Contains(outcomes[0], "not followed") {
		t.Errorf("notify records %q, want one notify_failed for the 307 that says the redirect is not followed", outcomes)
	}
}
