package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/redact"
)

// results passes on what a Sender reports.
type results struct {
	ch chan Result
}

func newResults() *results { return &results{ch: make(chan Result, 16)} }

func (r *results) report(res Result) { r.ch <- res }

func (r *results) next(t *testing.T) Result {
	t.Helper()
	select {
	case res := <-r.ch:
		return res
	case <-time.After(10 * time.Second):
		t.Fatal("no result in 10s")
		return Result{}
	}
}

// post is one request a test server received.
type post struct {
	header http.Header
	body   []byte
}

// server records what it receives and answers with the statuses given,
// then 200.
func server(t *testing.T, statuses ...int) (*httptest.Server, chan post) {
	posts := make(chan post, 16)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		posts <- post{r.Header, body}
		if i := int(n.Add(1)) - 1; i < len(statuses) {
			w.WriteHeader(statuses[i])
			io.WriteString(w, "no_service\nsecond line")
		}
	}))
	t.Cleanup(srv.Close)
	return srv, posts
}

func message() Message {
	return Message{Event: Hang, Agent: "cursor", SessionID: "s-1", Prompt: "fix the tests", Cwd: "/w",
		Reason: "no output for 5m0s", Log: "/logs/x.jsonl", Resume: "cursor-wrap --agent cursor -- --resume s-1 continue"}
}

func TestWebhook(t *testing.T) {
	t.Parallel()
	srv, posts := server(t)
	res := newResults()
	s := &Sender{Report: res.report, Secrets: redact.New(nil, []string{"TEST_TOKEN=the tests"})}
	s.Send([]string{srv.URL + "/hooks/T000/secret"}, message())
	p := <-posts
	var body map[string]any
	if err := json.Unmarshal(p.body, &body); err != nil {
		t.Fatalf("body %s: %v", p.body, err)
	}
	want := "cursor-wrap: cursor hung: no output for 5m0s. Session s-1 in /w, prompt \"fix [REDACTED]\""
	if body["text"] != want || body["content"] != want {
		t.Errorf("text %q, content %q\nwant %q", body["text"], body["content"], want)
	}
	for k, v := range map[string]string{"event": "hang", "agent": "cursor", "session_id": "s-1", "prompt": "fix [REDACTED]", "cwd": "/w",
		"reason": "no output for 5m0s", "log": "/logs/x.jsonl", "resume": "cursor-wrap --agent cursor -- --resume s-1 continue"} {
		if body[k] != v {
			t.Errorf("%s = %v, want %q", k, body[k], v)
		}
	}
	if m, _ := json.Marshal(body["allowed_mentions"]); string(m) != `{"parse":[]}` {
		t.Errorf("allowed_mentions %s", m)
	}
	if p.header.Get("Content-Type") != "application/json" || p.header.Get("X-Title") != "cursor-wrap: cursor hung" || p.header.Get("X-Message") != "{{.text}}" {
		t.Errorf("headers %v", p.header)
	}
	r := res.next(t)
	if r.Err != nil || r.Status != 200 || r.Tries != 1 || r.Event != Hang || r.Log != "/logs/x.jsonl" || r.Target != srv.URL+"/…" {
		t.Errorf("result %+v", r)
	}
	s.Wait()
}

func TestRetry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		statuses []int
		tries    int
		err      string
	}{
		{"a 500 then 200", []int{500}, 2, ""},
		{"429 twice", []int{429, 429}, 2, "HTTP 429 no_service"},
		{"404 is not retried", []int{404}, 1, "HTTP 404 no_service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, posts := server(t, tc.statuses...)
			res := newResults()
			s := &Sender{Report: res.report, pause: time.Millisecond}
			s.Send([]string{srv.URL}, message())
			r := res.next(t)
			if r.Tries != tc.tries || len(posts) != tc.tries || (r.Err == nil) != (tc.err == "") || r.Err != nil && r.Err.Error() != tc.err {
				t.Errorf("result %+v after %d posts", r, len(posts))
			}
		})
	}
}

// TestErrorsHideTheURL: a webhook URL holds its secret; no error shows it.
func TestErrorsHideTheURL(t *testing.T) {
	t.Parallel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := "http://" + ln.Addr().String() + "/services/T0/B0/s3cret"
	ln.Close()
	res := newResults()
	s := &Sender{Report: res.report, pause: time.Millisecond, timeout: 50 * time.Millisecond}
	s.Send([]string{refused}, message())
	r := res.next(t)
	if r.Err == nil || strings.Contains(r.Err.Error(), "s3cret") || !strings.Contains(r.Err.Error(), "refused") || r.Tries != 2 {
		t.Errorf("result %+v", r)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-stop }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	res := newResults()
	s := &Sender{Report: res.report, pause: time.Millisecond, timeout: 100 * time.Millisecond}
	s.Send([]string{srv.URL}, message())
	r := res.next(t)
	if !errors.Is(r.Err, context.DeadlineExceeded) || r.Tries != 2 || r.Took < 200*time.Millisecond {
		t.Errorf("result %+v", r)
	}
}

// TestWait: the end of a run waits for a request being sent, briefly for
// its answer, and not for a retry's pause; what is still in flight then
// is reported as it stands, once, and stopped: no try or retry of it
// outlives the wait.
func TestWait(t *testing.T) {
	// Not parallel: it sets PATH.
	stop := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-stop }))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(stop) })
	failing, failed := server(t, 500, 500)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := "http://" + ln.Addr().String()
	ln.Close()
	// A notify-send that counts its runs and says its pid once it runs,
	// then hangs.
	started, runs := filepath.Join(t.TempDir(), "started"), filepath.Join(t.TempDir(), "runs")
	if err := syscall.Mkfifo(started, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := "#!/bin/sh\necho run >> " + runs + "\necho $$ > " + started + "\nexec sleep 30\n"
	if err := os.WriteFile(filepath.Join(dir, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	res := newResults()
	s := &Sender{Report: res.report}
	s.Send([]string{hanging.URL, failing.URL, Desktop}, message())
	b, err := os.ReadFile(started)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid == 0 {
		t.Fatalf("the notifier did not start: %q, %v", b, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	<-failed
	start := time.Now()
	s.wait(300*time.Millisecond, 50*time.Millisecond)
	took := time.Since(start)
	// The desktop notifier is still running at the send limit. Waiting for
	// it would take its RequestTimeout (5s); past the limit, only the
	// scheduler adds.
	if took < 300*time.Millisecond || took > 300*time.Millisecond+time.Second {
		t.Errorf("waited %v, want the send limit of 300ms", took)
	}
	byTarget := map[string]Result{}
	for range 3 {
		r := res.next(t)
		byTarget[r.Target] = r
	}
	if r := byTarget[hanging.URL]; r.Err != nil || r.Status != 0 {
		t.Errorf("hanging server: %+v", r)
	}
	if r := byTarget[failing.URL]; r.Err == nil || r.Err.Error() != "HTTP 500 no_service; the run ended before the retry" {
		t.Errorf("failing server: %+v", r)
	}
	if r := byTarget[Desktop]; r.Err == nil || r.Err.Error() != "not sent within 300ms of the end of the run" {
		t.Errorf("desktop: %+v", r)
	}
	// Every delivery ends without its retry (a second for the failing
	// server's pause), and none is reported twice.
	ended(t, s)
	if n, _ := os.ReadFile(runs); string(n) != "run\n" || len(failed) != 0 || len(res.ch) != 0 {
		t.Errorf("after the wait: notifier runs %q, %d more posts, %d more results", n, len(failed), len(res.ch))
	}

	// Without a notifier that hangs, the wait is the answer's only.
	s2 := &Sender{Report: func(Result) {}}
	s2.Send([]string{hanging.URL, refused}, message())
	start = time.Now()
	s2.wait(time.Second, 50*time.Millisecond)
	// The send limit (1s) would be the wait for a request still being sent.
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("waited %v for a server that does not answer and one that refuses, want 50ms", took)
	}
	ended(t, s2)
}

// ended waits until the Sender has no delivery left, as each delivery's
// goroutine moves it out of flight last.
func ended(t *testing.T, s *Sender) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		left, changed := len(s.inFlight), s.changed
		s.mu.Unlock()
		if left == 0 {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("%d deliveries still in flight 10s after the wait", left)
		}
	}
}

// fakeNotifySend makes a directory with a notify-send that writes its
// arguments to out, one a line, for PATH.
func fakeNotifySend(t *testing.T, out string) string {
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + out + "\n"
	if err := os.WriteFile(filepath.Join(dir, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDesktop(t *testing.T) {
	// Not parallel: it sets PATH.
	out := filepath.Join(t.TempDir(), "args")
	t.Setenv("PATH", fakeNotifySend(t, out)+":/usr/bin:/bin")
	res := newResults()
	s := &Sender{Report: res.report}
	s.Send([]string{Desktop}, message())
	if r := res.next(t); r.Err != nil || r.Target != Desktop {
		t.Fatalf("result %+v", r)
	}
	args, _ := os.ReadFile(out)
	want := "--app-name=cursor-wrap\ncursor-wrap: cursor hung\ncursor-wrap: cursor hung: no output for 5m0s. Session s-1 in /w, prompt \"fix the tests\"\n"
	if string(args) != want {
		t.Errorf("notify-send got %q\nwant %q", args, want)
	}

	t.Setenv("PATH", t.TempDir())
	s.Send([]string{Desktop}, message())
	if r := res.next(t); !errors.Is(r.Err, ErrNoDesktop) || r.Tries != 1 {
		t.Errorf("without a notifier: %+v", r)
	}
}

func TestCheckTargetAndLabel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		target, label string
		ok            bool
	}{
		{"desktop", "desktop", true},
		{"https://hooks.slack.com/services/T0/B0/secret", "https://hooks.slack.com/…", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"https://user:pass@ntfy.example.com/topic", "https://ntfy.example.com/…", true},
		{"https://user:p@ss@ntfy.example.com/topic", "https://ntfy.example.com/…", true},
		{"http://hooks.example.com?auth=secret-token", "http://hooks.example.com?…", true},
		{"http://hooks.example.com:8080#secret-token", "http://hooks.example.com:8080#…", true},
		{"http://hooks.example.com/", "http://hooks.example.com", true},
		{"https://ntfy.example.com?u=a@b", "https://ntfy.example.com?…", true},
		{"hooks.slack.com/services/x", "hooks.slack.com/…", false},
		{"ftp://example.com/x", "ftp://example.com/…", false},
		{"https://", "https://", false},
		{"desktp", "desktp", false},
	} {
		if got := Label(tc.target); got != tc.label {
			t.Errorf("Label(%q) = %q, want %q", tc.target, got, tc.label)
		}
		if err := CheckTarget(tc.target); (err == nil) != tc.ok {
			t.Errorf("CheckTarget(%q) = %v", tc.target, err)
		}
	}
}
