package notify

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/ptyproxy/redact"
)

// Timeouts of a delivery.
const (
	// RequestTimeout bounds each try: a POST until its answer, a desktop
	// notifier until it exits.
	RequestTimeout = 5 * time.Second
	// ExitWait bounds how long Wait waits for requests still being sent:
	// connecting, a TLS handshake.
	ExitWait = time.Second
	// AnswerWait bounds how long Wait then waits for the answers to
	// requests that were sent. A server that takes the request and never
	// answers costs a run's end this much.
	AnswerWait = 100 * time.Millisecond
	// retryPause comes before the one retry.
	retryPause = time.Second
)

// A Sender delivers messages: each target of each message in a goroutine
// of its own, with RequestTimeout per try and one retry.
type Sender struct {
	// Secrets masks what is sent: every delivery takes only masked text
	// (nil: the secrets of a known shape only).
	Secrets *redact.Redactor
	// Report hears how each delivery ended, once, from its goroutine or
	// from Wait.
	Report func(Result)

	timeout time.Duration // RequestTimeout; shorter in tests
	pause   time.Duration // retryPause; shorter in tests

	mu       sync.Mutex
	inFlight map[*delivery]bool
	changed  chan struct{} // closed and replaced when a delivery moves on
}

// A Result is how one delivery ended.
type Result struct {
	Event  Event
	Target string // as Label shows it
	Log    string // the message's log
	Tries  int
	// Status is the HTTP status of the answer, 0 for the desktop or when
	// the run ended before the answer came.
	Status int
	Err    error // nil: delivered
	Took   time.Duration
}

// ErrNoDesktop is a desktop target on a machine with no notifier.
var ErrNoDesktop = errors.New("no desktop notifier: neither notify-send nor osascript is on PATH")

// A delivery is one message on its way to one target.
type delivery struct {
	result Result
	start  time.Time
	// ctx ends the delivery: Wait cancels what it reports as it stands,
	// so that no try or retry outlives the run it was for.
	ctx    context.Context
	cancel context.CancelFunc
	state  state
	tries  int
	err    error // of the last failed try, while waiting to retry
	done   bool  // reported
}

type state int

const (
	sending  state = iota // connecting, writing; a desktop notifier running
	awaiting              // the request is written; no answer yet
	retrying              // a try failed; the retry comes after a pause
)

// Send delivers m to each target. It returns at once.
func (s *Sender) Send(targets []string, m Message) {
	body := s.Secrets.Mask(m.body())
	title, text := s.Secrets.MaskString(m.Title()), s.Secrets.MaskString(m.summary())
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight == nil {
		s.inFlight = map[*delivery]bool{}
		s.changed = make(chan struct{})
	}
	for _, t := range targets {
		d := &delivery{result: Result{Event: m.Event, Target: Label(t), Log: m.Log}, start: time.Now()}
		d.ctx, d.cancel = context.WithCancel(context.Background())
		s.inFlight[d] = true
		go s.deliver(d, t, body, title, text)
	}
}

// deliver makes at most two tries, then reports, unless Wait ended it
// first.
func (s *Sender) deliver(d *delivery, target string, body, title, text redact.Masked) {
	defer d.cancel()
	timeout, pause := cmp.Or(s.timeout, RequestTimeout), cmp.Or(s.pause, retryPause)
	var status int
	var err error
	for try := 1; ; try++ {
		s.move(d, sending, try, nil)
		ctx, cancel := context.WithTimeout(d.ctx, timeout)
		if target == Desktop {
			err = s.desktop(ctx, title, text)
		} else {
			status, err = s.post(ctx, d, target, body, title)
		}
		cancel()
		if err == nil || try == 2 || !retryable(status, err) || d.ctx.Err() != nil {
			s.finish(d, Result{Tries: try, Status: status, Err: err})
			return
		}
		s.move(d, retrying, try, err)
		select {
		case <-time.After(pause):
		case <-d.ctx.Done():
		}
	}
}

// retryable says whether a second try may do better: not for a missing
// notifier or a request the server refused as wrong (4xx but 429).
func retryable(status int, err error) bool {
	if errors.Is(err, ErrNoDesktop) {
		return false
	}
	return status == 0 || status == http.StatusTooManyRequests || status >= 500
}

// webhookClient never follows a redirect: the body carries the prompt, the
// working directory and the resume command, and a followed redirect would
// carry them, with the secret webhook URL as Referer, to a host the user
// never named.
var webhookClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// post sends one POST. A server that shows ntfy's headers shows the text
// line under the title (ntfy 2.10 and later fill the message from the
// JSON; older ones show the body); others ignore them.
func (s *Sender) post(ctx context.Context, d *delivery, target string, body, title redact.Masked) (int, error) {
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(w httptrace.WroteRequestInfo) {
		if w.Err == nil {
			s.move(d, awaiting, 0, nil)
		}
	}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body.Bytes()))
	if err != nil {
		return 0, errURL(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "cursor-wrap")
	req.Header.Set("X-Title", title.String())
	req.Header.Set("X-Template", "yes")
	req.Header.Set("X-Message", "{{.text}}")
	resp, err := webhookClient.Do(req)
	if err != nil {
		return 0, errURL(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 == 3 {
		return resp.StatusCode, fmt.Errorf("HTTP %d: a redirect, not followed (the message would go to another URL): give the webhook's final URL", resp.StatusCode)
	}
	if resp.StatusCode/100 != 2 {
		line, _, _ := strings.Cut(strings.TrimSpace(s.Secrets.Mask(answer).String()), "\n")
		if r := []rune(line); len(r) > 100 {
			line = string(r[:100]) + "…"
		}
		return resp.StatusCode, fmt.Errorf("HTTP %d %s", resp.StatusCode, strings.TrimSpace(line))
	}
	return resp.StatusCode, nil
}

// desktop shows a desktop notification: notify-send (Linux), else
// osascript (macOS).
func (s *Sender) desktop(ctx context.Context, title, text redact.Masked) error {
	name, args, err := desktopCommand(title, text)
	if err != nil {
		return err
	}
	cmd := reaper.CommandContext(ctx, name, args...)
	cmd.KillGroup()
	out, err := cmd.CombinedOutput()
	if err != nil {
		if line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n"); line != "" {
			return fmt.Errorf("%w: %s", err, line)
		}
		return err
	}
	return nil
}

// move records a delivery's new state (and its try, unless 0) and wakes
// Wait.
func (s *Sender) move(d *delivery, to state, try int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d.state, d.err = to, err
	if try > 0 {
		d.tries = try
	}
	s.wake()
}

func (s *Sender) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// finish reports a delivery's end, unless Wait reported it already. The
// delivery stays in flight until its report is made, so that Wait does
// not return before its record is written.
func (s *Sender) finish(d *delivery, r Result) {
	s.mu.Lock()
	first := !d.done
	d.done = true
	s.mu.Unlock()
	if first {
		s.report(d, r)
	}
	s.mu.Lock()
	delete(s.inFlight, d)
	s.wake()
	s.mu.Unlock()
}

func (s *Sender) report(d *delivery, r Result) {
	r.Event, r.Target, r.Log = d.result.Event, d.result.Target, d.result.Log
	r.Took = time.Since(d.start)
	if s.Report != nil {
		s.Report(r)
	}
}

// Wait waits for the deliveries in flight, so that a run's end does not
// cut them off: at most ExitWait for requests still being sent, then at
// most AnswerWait for the answers to those sent. It does not wait for a
// retry's pause. Each delivery still in flight then is reported as it
// stands (a request sent but not answered counts as delivered, status 0)
// and stopped: a process that lives on (the MCP server runs many jobs)
// keeps no goroutine, notifier or late retry of a run that ended.
func (s *Sender) Wait() {
	s.wait(ExitWait, AnswerWait)
}

func (s *Sender) wait(sendLimit, answerLimit time.Duration) {
	now := time.Now()
	sendBy, answerBy := now.Add(sendLimit), time.Time{}
	for {
		s.mu.Lock()
		toSend, toAnswer := 0, 0
		for d := range s.inFlight {
			switch d.state {
			case sending:
				toSend++
			case awaiting:
				toAnswer++
			}
		}
		changed := s.changed
		s.mu.Unlock()
		until := now
		switch {
		case toSend > 0:
			until = sendBy
		case toAnswer > 0:
			if answerBy.IsZero() {
				answerBy = now.Add(answerLimit)
			}
			until = answerBy
		}
		if !now.Before(until) {
			break
		}
		t := time.NewTimer(until.Sub(now))
		select {
		case <-changed:
		case <-t.C:
		}
		t.Stop()
		now = time.Now()
	}
	s.mu.Lock()
	left := map[*delivery]Result{}
	for d := range s.inFlight {
		if !d.done {
			d.done = true
			left[d] = d.standing(sendLimit)
		}
		d.cancel()
	}
	s.mu.Unlock()
	for d, r := range left {
		s.report(d, r)
	}
}

// standing is the result of a delivery cut off by the end of a run; the
// Sender's lock is held.
func (d *delivery) standing(sendLimit time.Duration) Result {
	switch d.state {
	case awaiting:
		return Result{Tries: d.tries}
	case retrying:
		return Result{Tries: d.tries, Err: fmt.Errorf("%w; the run ended before the retry", d.err)}
	}
	return Result{Tries: d.tries, Err: fmt.Errorf("not sent within %s of the end of the run", sendLimit)}
}
