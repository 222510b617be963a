package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// progressEvery is the longest a caller that asked for progress goes
// without a notification; a change of phase is sent at once.
const progressEvery = 10 * time.Second

// quietAfter is the silence from which a progress message mentions it.
const quietAfter = 5 * time.Second

// A pacer decides when a progress notification is due: at once when the
// phase changes, otherwise progressEvery after the last one.
type pacer struct {
	key  string
	sent time.Time
}

// due reports whether to send a notification for phase key at now, and
// if so counts it as sent.
func (p *pacer) due(key string, now time.Time) bool {
	if !p.sent.IsZero() && key == p.key && now.Sub(p.sent) < progressEvery {
		return false
	}
	p.key, p.sent = key, now
	return true
}

// wait is how long from now until a notification is due for the same phase.
func (p *pacer) wait(now time.Time) time.Duration {
	if d := p.sent.Add(progressEvery).Sub(now); d > 0 {
		return d
	}
	return progressEvery
}

// A view is what a run's progress says at one instant.
type view struct {
	arrived time.Time
	queued  bool             // waiting for a slot
	started bool             // past the queue
	running int              // agents running, while queued
	limit   int              // [mcp] max_concurrent, while queued
	status  *ptyproxy.Status // the latest snapshot of the agent, nil before
	profile *stream.Profile  // the agent's, for the words of its stream
	// The last line's event and output, which may be newer than status.
	event   string
	eventAt time.Time
	output  time.Time
}

// describe says where a run is at now: key names its phase (a new key is
// worth a notification at once) and text says it for a person, as the
// status line does (ptyproxy.Status.Activity); key is "" before the run
// is either queued or started. Times in a snapshot are moved on to now.
func describe(v view, now time.Time) (key, text string) {
	switch {
	case !v.started && !v.queued:
		return "", ""
	case !v.started:
		return "queued", fmt.Sprintf("queued: %d of %d agents running, waited %s", v.running, v.limit, words.Duration(max(now.Sub(v.arrived), 0)))
	case v.status == nil:
		return "starting", "starting the agent"
	}
	st := *v.status
	st.Reason, st.Now = st.Reason.MovedOn(now.Sub(st.Now)), now
	if v.eventAt.After(v.status.Now) {
		st.Reason.LastEventType = v.event
	}
	if v.output.After(v.status.Now) {
		st.Reason.Silence = now.Sub(v.output)
	}
	a := st.Activity(now, v.profile)
	if a.FromStream {
		a.Text += notes(st.Reason)
	}
	if st.Phase == ptyproxy.Running && st.Verdict == watchdog.Warn {
		return "warn", a.Text + "; " + st.Reason.Imminent()
	}
	return a.Key, a.Text
}

// notes adds what the stream's silence says to the words of its last
// line: how long, once it is long enough to mention, and whether the
// agent's processes were busy meanwhile.
func notes(r watchdog.Reason) string {
	var notes []string
	if r.Silence >= quietAfter {
		notes = append(notes, "silent "+words.Duration(r.Silence))
	}
	if r.Evidence.Extended > 0 {
		notes = append(notes, "agent busy")
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, ", ") + ")"
}

// cutBytes returns s cut to at most n bytes, at a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// follow waits for the run until done reports true, ctx ends or until
// passes (zero: no limit), sending progress notifications for token (nil:
// none) on each change of phase and at least every progressEvery.
func (r *run) follow(ctx context.Context, ss *mcp.ServerSession, token any, until time.Time, done func() bool) {
	var p pacer
	var progress float64
	timer := time.NewTimer(progressEvery)
	defer timer.Stop()
	for {
		changed := r.changes()
		if done() {
			return
		}
		now := time.Now()
		wait := progressEvery
		if token != nil {
			if key, text := describe(r.view(), now); key != "" && p.due(key, now) {
				// Progress must grow with each notification.
				progress = max(progress+0.001, now.Sub(r.arrived).Seconds())
				_ = ss.NotifyProgress(ctx, sentProgress(token, r.mask(words.Display(r.redact(text))), progress)) // A gone client is no error of ours.
			}
			wait = p.wait(now)
		}
		if !until.IsZero() {
			if wait = min(wait, until.Sub(now)); wait <= 0 {
				return
			}
		}
		timer.Reset(wait)
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
			return
		}
	}
}

// startWarner sends a warning to the client before each hang kill, until
// the returned func is called; once it returns nothing more is sent.
func (r *run) startWarner() (stop func()) {
	done := make(chan struct{})
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		for {
			select {
			case <-done:
				return
			case <-r.wake:
			}
			r.mu.Lock()
			w := r.warning
			r.warning = nil
			r.mu.Unlock()
			if w != nil {
				r.warn(*w, time.Now())
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done); <-gone })
	}
}

// warning is the data of the notifications/message sent before a hang
// kill.
type warning struct {
	Message   string     `json:"message"`
	RunID     string     `json:"run_id"`
	SessionID string     `json:"session_id,omitempty"`
	LogPath   string     `json:"log_path,omitempty"`
	Prompt    string     `json:"prompt"` // its start, to tell concurrent runs apart
	DueInMS   int64      `json:"due_in_ms"`
	Reason    sentReason `json:"reason"`
}

// warningText says what the warning before a hang kill says, from the
// reason cleaned and moved on to the moment of the warning.
func (r *run) warningText(rs sentReason) string {
	a := ptyproxy.Status{Reason: rs.Reason}.Activity(time.Time{}, r.job.Cmd.Profile)
	if a.FromStream {
		a.Text += notes(rs.Reason)
	}
	return words.Display(r.redact("agent hang imminent: " + a.Text + "; " + rs.Imminent()))
}

// warn tells the client a hang kill is near, once per impending hang.
func (r *run) warn(st ptyproxy.Status, now time.Time) {
	rs := r.cleanReason(st.Reason)
	rs.Reason = rs.MovedOn(now.Sub(st.Now))
	w := warning{
		Message:   r.warningText(rs),
		RunID:     r.id,
		SessionID: rs.SessionID,
		LogPath:   r.logPath(),
		Prompt:    r.clean(r.req.Prompt, 60),
		DueInMS:   max(rs.DueIn, 0).Milliseconds(),
		Reason:    rs,
	}
	_ = r.session.Log(r.logCtx, sentWarning(r.seal(w))) // A gone client is no error of ours.
}
