package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/watchdog"
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
	// The last line's event and output, which may be newer than status.
	event   string
	eventAt time.Time
	output  time.Time
}

// describe says where a run is at now: key names its phase (a new key is
// worth a notification at once) and text says it for a person; key is ""
// before the run is either queued or started. Times in a snapshot are
// moved on to now.
func describe(v view, now time.Time) (key, text string) {
	switch {
	case !v.started && !v.queued:
		return "", ""
	case !v.started:
		return "queued", fmt.Sprintf("queued: %d of %d agents running, waited %s", v.running, v.limit, clock(now.Sub(v.arrived)))
	case v.status == nil:
		return "starting", "starting the agent"
	}
	st := *v.status
	r := st.Reason
	switch {
	case st.Phase == ptyproxy.Stopping && st.Verdict == watchdog.Hang:
		return "stopping", "hang detected (" + r.Kind + "); killing the agent's process tree"
	case st.Phase == ptyproxy.Stopping:
		return "stopping", "stopping the agent's process tree"
	case st.Phase == ptyproxy.Exiting:
		return "exiting", "the agent exited; reading its last output"
	case r.Kind == watchdog.KindExit:
		return "answered", "answer complete; waiting for the agent to exit"
	}
	r = advance(r, now.Sub(st.Now))
	if v.eventAt.After(st.Now) {
		r.LastEventType = v.event
	}
	if v.output.After(st.Now) {
		r.Silence = now.Sub(v.output)
	}
	key, text = activity(r, len(r.OpenCalls))
	if st.Verdict == watchdog.Warn {
		return "warn", text + "; " + imminent(r)
	}
	return key, text
}

// advance moves the times in a reason on by d, to the present.
func advance(r watchdog.Reason, d time.Duration) watchdog.Reason {
	r.Silence += d
	r.Elapsed += d
	r.DueIn -= d
	r.OpenCalls = slices.Clone(r.OpenCalls)
	for i := range r.OpenCalls {
		r.OpenCalls[i].Elapsed += d
	}
	return r
}

// phaseOf names the phase a stream is in after a line of this event type
// ("type/subtype"), when no tool call is open.
func phaseOf(event string) (key, text string) {
	switch {
	case event == "" || event == "start" || strings.HasPrefix(event, "system"):
		return "starting", "starting"
	case strings.HasPrefix(event, "thinking"):
		return "thinking", "thinking"
	case strings.HasPrefix(event, "assistant"):
		return "writing", "writing reply"
	}
	return "working", "working"
}

// activity says what the agent is doing, from its stream; open is how
// many calls are open, of which r may list only the first.
func activity(r watchdog.Reason, open int) (key, text string) {
	if n := open; n > 0 && len(r.OpenCalls) > 0 {
		c := r.OpenCalls[0]
		text = fmt.Sprintf("running %s: %s (%s of %s)", c.Kind, cut(oneLine(c.Command), 60), clock(c.Elapsed), clock(c.Budget))
		if n > 1 {
			text += fmt.Sprintf(" and %d more", n-1)
		}
		return "tool " + strconv.Itoa(n) + " " + c.ID, text
	}
	key, text = phaseOf(r.LastEventType)
	var notes []string
	if r.Silence >= quietAfter {
		notes = append(notes, "silent "+clock(r.Silence))
	}
	if r.Evidence.Extended > 0 {
		notes = append(notes, "agent busy")
	}
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, ", ") + ")"
	}
	return key, text
}

// imminent says when the hang the verdict warns of will be declared.
func imminent(r watchdog.Reason) string {
	due := clock(r.DueIn)
	if r.Kind == watchdog.KindDeadline {
		return "the hard timeout of " + clock(r.Threshold) + " stops it in " + due
	}
	return "no output for " + clock(r.Silence) + "; it will be stopped in " + due + " unless it speaks"
}

// clock formats a duration to the nearest second, or millisecond below a
// second: 45s, 1m23s, 300ms.
func clock(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// oneLine puts s on one line, each run of white space one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// plain makes the agent's text fit to show: invalid UTF-8, control
// characters (escape sequences, carriage returns, bells) and bidirectional
// overrides become spaces.
func plain(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// cut returns s cut to max runes, "..." marking a cut.
func cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-3]) + "..."
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
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Message: plain(r.redact(text)), Progress: progress}) // A gone client is no error of ours.
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
	_, doing := activity(rs.Reason, rs.count)
	return plain(r.redact("agent hang imminent: " + doing + "; " + imminent(rs.Reason)))
}

// warn tells the client a hang kill is near, once per impending hang.
func (r *run) warn(st ptyproxy.Status, now time.Time) {
	rs := r.cleanReason(st.Reason)
	rs.Reason = advance(rs.Reason, now.Sub(st.Now))
	w := warning{
		Message:   r.warningText(rs),
		RunID:     r.id,
		SessionID: rs.SessionID,
		LogPath:   r.logPath(),
		Prompt:    r.clean(r.req.Prompt, 60),
		DueInMS:   max(rs.DueIn, 0).Milliseconds(),
		Reason:    rs,
	}
	_ = r.session.Log(r.logCtx, &mcp.LoggingMessageParams{Level: "warning", Logger: "cursor-wrap", Data: r.seal(w)}) // A gone client is no error of ours.
}
