package watchdog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"cursor-wrap/stream"
)

// A packet is what one write put on a connection, at t after the silence
// began, in or out.
type packet struct {
	t  time.Duration
	in bool
	n  int64
}

// every returns a packet each period from phase until end (0: forever,
// up to 2000 s), in or out, n bytes each.
func every(period, phase, end time.Duration, in bool, n int64) []packet {
	if end == 0 {
		end = 2000 * time.Second
	}
	var out []packet
	for t := phase; t < end; t += period {
		out = append(out, packet{t, in, n})
	}
	return out
}

// wire is one connection's traffic, and what the kernel says of it at a
// time: the sums and counts of what was sent and received until then.
type wire struct {
	id      uint64
	packets []packet
	from    time.Duration // the connection opens (its first sample)
	until   time.Duration // it is gone from samples (0: never)
	// How the kernel sees it from a time on: half-closed, data left
	// unread, retransmitting, or without data segment counts.
	closeWaitFrom, unreadFrom, deadFrom time.Duration
	noSegs                              bool
}

func (w wire) at(d time.Duration) (Conn, bool) {
	if d < w.from || w.until > 0 && d >= w.until {
		return Conn{}, false
	}
	c := Conn{ID: w.id, Remote: fmt.Sprintf("10.0.0.%d:443", w.id), Open: w.closeWaitFrom == 0 || d < w.closeWaitFrom}
	lastIn, lastOut := time.Duration(-1), time.Duration(-1)
	for _, p := range w.packets {
		if p.t > d {
			continue
		}
		switch {
		case !p.in:
			c.Sent, c.SegsOut, lastOut = c.Sent+p.n, c.SegsOut+1, max(lastOut, p.t)
		case w.unreadFrom > 0 && p.t >= w.unreadFrom:
			c.Unread, c.SegsIn, lastIn = c.Unread+p.n, c.SegsIn+1, max(lastIn, p.t)
		default:
			c.Received, c.SegsIn, lastIn = c.Received+p.n, c.SegsIn+1, max(lastIn, p.t)
		}
	}
	c.RecvAgo, c.SendAgo = d-lastIn, d-lastOut
	if lastIn < 0 {
		c.RecvAgo = d
	}
	if lastOut < 0 {
		c.SendAgo = d
	}
	if w.deadFrom > 0 && d >= w.deadFrom {
		c.Unacked, c.Retransmits = 1, int(min(10, 1+(d-w.deadFrom)/(300*time.Millisecond)))
	}
	if w.noSegs {
		c.SegsIn, c.SegsOut = 0, 0
	}
	return c, true
}

// request is the agent's request on a connection, sent at t.
func request(t time.Duration, n int64) []packet { return []packet{{t, false, n}} }

// content is a response streaming in, a record of n bytes every 100ms
// from from to to.
func content(from, to time.Duration, n int64) []packet {
	return every(100*time.Millisecond, from, to+time.Millisecond, true, n)
}

func joined(parts ...[]packet) []packet {
	var out []packet
	for _, p := range parts {
		out = append(out, p...)
	}
	slices.SortStableFunc(out, func(a, b packet) int { return int(a.t - b.t) })
	return out
}

var (
	assistant = ev(`{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]}}`)
	textMode  = stream.Event{NotJSON: true}
)

// runConns drives a watchdog from a first line at t0 (which opens a model
// call, or not) with samples of the wires at every instant it wants one,
// and returns when it declared a hang (-1: none by 2000 s) and why.
func runConns(t *testing.T, th Thresholds, first stream.Event, wires ...wire) (time.Duration, Reason) {
	t.Helper()
	return runConnsAfter(t, th, []timedEvent{{0, first}}, wires...)
}

// A timedEvent is a line the agent prints at a time.
type timedEvent struct {
	at time.Duration
	ev stream.Event
}

// runConnsAfter is runConns with the agent's lines at their times, the
// first at 0.
func runConnsAfter(t *testing.T, th Thresholds, events []timedEvent, wires ...wire) (time.Duration, Reason) {
	t.Helper()
	th.ActivityProbe, th.ConnProbe = true, true
	w := New(th, t0)
	w.ProcessEvent(events[0].ev, t0)
	events = events[1:]
	for now := t0; now.Before(at(2000 * time.Second)); {
		next := w.Decide(now).Next
		if next.IsZero() {
			t.Fatal("no next deadline")
		}
		if len(events) > 0 && !at(events[0].at).After(next) {
			now = at(events[0].at)
			w.ProcessEvent(events[0].ev, now)
			events = events[1:]
			continue
		}
		now = next
		if w.WantsActivity(now) {
			var a Activity
			for _, wr := range wires {
				if c, ok := wr.at(now.Sub(t0)); ok {
					a.Conns = append(a.Conns, c)
				}
			}
			w.ObserveActivity(a, now)
		}
		if v, r := w.Check(now); v == Hang {
			return now.Sub(t0), r
		}
	}
	return -1, Reason{}
}

// TestConnTransports drives the connection rule with each transport's
// shape, as the kernel reports it sample after sample: while the model
// is waited on, a live peer's keep-alives excuse the silence up to
// max_keepalive_wait whichever side sends them; content excuses an idle
// timeout past its last arrival, up to max_silence; a peer that stops
// answering, an idle pooled connection, data left unread or a half-closed
// connection excuse nothing.
func TestConnTransports(t *testing.T) {
	t.Parallel()
	s := time.Second
	const never = -1
	req := request(100*time.Millisecond, 22<<10)
	sse := func(end time.Duration) []packet { return joined(req, every(15*s, 15*s, end, true, 66)) }
	ws := func(end time.Duration) []packet { // server pings, the agent pongs in the same millisecond
		return joined(request(50*time.Millisecond, 36<<10), req, every(10*s, 3*s, end, true, 30), every(10*s, 3*s+time.Millisecond, end, false, 34))
	}
	for _, tc := range []struct {
		name     string
		first    stream.Event
		text     bool
		wires    []wire
		wantHang time.Duration
	}{
		// SSE (Claude's pings, OpenAI's keepalive events).
		{"SSE pings every 15s, a parked turn", initEv, false, []wire{{id: 1, packets: sse(0)}}, 600 * s},
		{"SSE pings, then the answer", initEv, false, []wire{{id: 1, packets: joined(sse(300*s), content(300*s, 310*s, 400))}}, 370 * s},
		{"SSE pings, then the stream dies", initEv, false, []wire{{id: 1, packets: sse(100 * s)}}, 150 * s},
		{"pings every 40s: its own period", initEv, false, []wire{{id: 1, packets: joined(req, every(40*s, 40*s, 201*s, true, 66))}}, 320 * s},
		{"pings every 59s, a moment before what the last earned runs out", initEv, false, []wire{{id: 1, packets: joined(req, every(59*s, 59*s+500*time.Millisecond, 0, true, 66))}}, 600 * s},
		{"a dead stream: nothing received", initEv, false, []wire{{id: 1, packets: req}}, 60 * s},
		// WebSocket (Codex): the agent pongs each ping in the same millisecond.
		{"WebSocket ping/pong, a parked turn", initEv, false, []wire{{id: 1, packets: ws(0)}}, 600 * s},
		{"WebSocket ping/pong, then the answer", initEv, false, []wire{{id: 1, packets: joined(ws(90*s), content(90*s, 91*s, 300))}}, 151 * s},
		// Content (a long reply with no partial output).
		{"content streaming in", initEv, false, []wire{{id: 1, packets: joined(req, content(10*s, 700*s, 300))}}, 760 * s},
		{"content past max_silence", initEv, false, []wire{{id: 1, packets: joined(req, content(10*s, 2000*s, 300))}}, 900 * s},
		{"tiny content records, dense (cursor's text deltas)", initEv, false, []wire{{id: 1, packets: joined(req, content(10*s, 700*s, 40))}}, 760 * s},
		{"content with no model call open", assistant, false, []wire{{id: 1, packets: joined(req, content(10*s, 200*s, 300))}}, 260 * s},
		// What excuses nothing.
		{"an idle pooled connection, the server pings", assistant, false, []wire{{id: 1, packets: ws(0)}}, 60 * s},
		{"an idle pooled connection, the agent pings", assistant, false, []wire{{id: 1, packets: joined(every(5*s, 0, 0, false, 16), every(5*s, 10*time.Millisecond, 0, true, 16))}}, 60 * s},
		{"pings left unread", initEv, false, []wire{{id: 1, packets: sse(0), unreadFrom: time.Millisecond}}, 60 * s},
		{"a response left unread", initEv, false, []wire{{id: 1, packets: joined(req, content(10*s, 700*s, 300)), unreadFrom: 5 * s}}, 60 * s},
		{"content, a kernel without segment counts", initEv, false, []wire{{id: 1, packets: joined(req, content(10*s, 700*s, 300)), noSegs: true}}, 760 * s},
		{"half-closed", initEv, false, []wire{{id: 1, packets: sse(0), closeWaitFrom: time.Millisecond}}, 60 * s},
		// The cap counts from the start of the silence, across reconnects.
		{"a retry on a new connection", initEv, false, []wire{
			{id: 1, packets: ws(200 * s), until: 205 * s},
			{id: 2, packets: joined(request(207*s, 22<<10), every(10*s, 215*s, 0, true, 30)), from: 206 * s}}, 600 * s},
		// An older kernel that counts no data segments.
		{"SSE pings, a kernel without segment counts", initEv, false, []wire{{id: 1, packets: sse(0), noSegs: true}}, 600 * s},
		// Text mode: the connection's own request and answer.
		{"text mode: a request, then pings", textMode, true, []wire{{id: 1, packets: sse(0)}}, 600 * s},
		{"text mode: answered, then pings on the pooled connection", textMode, true, []wire{{id: 1, packets: joined(ws(0), content(5*s, 8*s, 3000))}}, 68 * s},
		{"text mode: pings, no request", textMode, true, []wire{{id: 1, packets: every(15*s, 15*s, 0, true, 66)}}, 60 * s},
		{"text mode: nothing at all", textMode, true, nil, 60 * s},
		{"a model call with no connection", initEv, false, nil, 60 * s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			th := testThresholds()
			th.TextMode = tc.text
			got, r := runConns(t, th, tc.first, tc.wires...)
			if got != tc.wantHang {
				t.Fatalf("hang at %v, want %v; %s", got, tc.wantHang, r.Describe())
			}
			if tc.wantHang > 60*s && got != never && r.Evidence.Conn == "" {
				t.Errorf("the connection that excused it is not said: %s", r.Describe())
			}
		})
	}
}

// TestConnPhases: the cursor-like stream (one HTTP/2 stream, the client's
// 16 B heartbeat every 5 s, the server's 18 B heartbeat frames while the
// model thinks) gets the same verdict at every phase of the two timers
// and at either server cadence: a 300 s think answered, a parked turn
// stopped at the cap. (Before, the verdict depended on the phase alone:
// killed at 60 s, or excused for 15 minutes.)
func TestConnPhases(t *testing.T) {
	t.Parallel()
	s := time.Second
	for _, cadence := range []time.Duration{5 * s, 15 * s} {
		for _, phase := range []time.Duration{0, time.Millisecond, 1 * s, 2500 * time.Millisecond, 4 * s, 14 * s} {
			phase = phase % cadence
			for _, parked := range []bool{false, true} {
				name := fmt.Sprintf("server every %v, %v after the client, parked %v", cadence, phase, parked)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					end, want := 2000*s, 600*s
					if !parked {
						end, want = 300*s, 370*s // the answer at 300-310 s, then silence
					}
					h2 := joined(request(100*time.Millisecond, 8<<10), every(5*s, 5*s, 0, false, 16),
						every(cadence, 5*s+phase, end, true, 18), content(end, end+10*s, 60))
					got, r := runConns(t, testThresholds(), initEv, wire{id: 1, packets: h2})
					if got != want {
						t.Fatalf("hang at %v, want %v; %s", got, want, r.Describe())
					}
				})
			}
		}
	}
}

// TestConnDeadPeer: a peer that stops acknowledging what the agent sends
// (its heartbeats retransmitted) excuses nothing from then on, without
// waiting for its keep-alives to be missed.
func TestConnDeadPeer(t *testing.T) {
	t.Parallel()
	s := time.Second
	h2 := joined(request(100*time.Millisecond, 8<<10), every(5*s, 5*s, 0, false, 16), every(5*s, 6*s, 100*s, true, 18))
	got, r := runConns(t, testThresholds(), initEv, wire{id: 1, packets: h2, deadFrom: 101 * s})
	if got < 101*s || got > 104*s {
		t.Fatalf("hang at %v, want within a sample of 101s, when the peer stopped acknowledging; %s", got, r.Describe())
	}
}

// TestConnCaps: max_keepalive_wait bounds keep-alives alone (a profile may
// set it shorter, as Codex's own 300 s stream timer makes right), never
// past max_silence; 0 turns keep-alives off; content is capped by
// max_silence alone.
func TestConnCaps(t *testing.T) {
	t.Parallel()
	s := time.Second
	pings := wire{id: 1, packets: joined(request(100*time.Millisecond, 22<<10), every(10*s, 10*s, 0, true, 30))}
	for _, tc := range []struct {
		name               string
		keepAlive, silence time.Duration
		want               time.Duration
	}{
		{"the default", 10 * time.Minute, 15 * time.Minute, 600 * s},
		{"Codex's", 330 * s, 15 * time.Minute, 330 * s},
		{"past max_silence", 30 * time.Minute, 5 * time.Minute, 300 * s},
		{"off", 0, 15 * time.Minute, 60 * s},
	} {
		th := testThresholds()
		th.MaxKeepAliveWait, th.MaxSilence = tc.keepAlive, tc.silence
		if got, r := runConns(t, th, initEv, pings); got != tc.want {
			t.Errorf("%s: hang at %v, want %v; %s", tc.name, got, tc.want, r.Describe())
		}
	}
}

// TestConnEvidenceSaid: the reason names the connection, why it excused
// the silence, the keep-alive period learned, and since when the model
// was waited on.
func TestConnEvidenceSaid(t *testing.T) {
	t.Parallel()
	s := time.Second
	th := testThresholds()
	th.MaxKeepAliveWait = 100 * s
	got, r := runConns(t, th, initEv, wire{id: 3, packets: joined(request(100*time.Millisecond, 22<<10), every(10*s, 10*s, 0, true, 30))})
	e := r.Evidence
	if got != 100*s || e.Conn != "10.0.0.3:443" || e.Earned != EarnedKeepAlive || e.Period != 10*s || e.ModelWait != 100*s || e.ConnQuiet != 0 {
		t.Fatalf("hang at %v, evidence %+v", got, e)
	}
	if d := r.Describe(); !strings.Contains(d, "the connection to 10.0.0.3:443 received data 0s before (keep-alives every 10s, the model waited on for 1m40s)") {
		t.Errorf("said: %s", d)
	}
}

// TestConnTextModeWork: in text mode the agent's own work is never
// capped; a connection's keep-alives are, from the agent's last work.
func TestConnTextModeWork(t *testing.T) {
	t.Parallel()
	s := time.Second
	th := testThresholds()
	th.TextMode, th.ActivityProbe, th.ConnProbe, th.MaxSilence, th.MaxKeepAliveWait = true, true, true, 300*s, 300*s
	pings := wire{id: 1, packets: joined(request(100*time.Millisecond, 22<<10), every(15*s, 15*s, 0, true, 66))}
	for _, tc := range []struct {
		name     string
		cpuUntil time.Duration
		w        []wire
		want     time.Duration
	}{
		{"busy, not capped", 2000 * s, nil, -1},
		{"busy, then pings: capped from the busy end", 500 * s, []wire{pings}, 800 * s},
		{"pings alone are capped", 0, []wire{pings}, 300 * s},
	} {
		w := New(th, t0)
		var got time.Duration = -1
		for now := t0; now.Before(at(2000 * s)); {
			now = w.Decide(now).Next
			d := now.Sub(t0)
			if w.WantsActivity(now) {
				a := Activity{CPU: min(d, tc.cpuUntil) / 2}
				for _, wr := range tc.w {
					if c, ok := wr.at(d); ok {
						a.Conns = append(a.Conns, c)
					}
				}
				w.ObserveActivity(a, now)
			}
			if v, _ := w.Check(now); v == Hang {
				got = d
				break
			}
		}
		if got != tc.want {
			t.Errorf("%s: hang at %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A connSample is what the kernel said of the agent's one connection at
// a time after the silence began.
type connSample struct {
	at time.Duration
	c  Conn
}

// sampledConns feeds a watchdog whose first line is first the samples,
// as the orchestrator would, and returns it.
func sampledConns(th Thresholds, first stream.Event, samples ...connSample) *Watchdog {
	th.ActivityProbe, th.ConnProbe = true, true
	w := New(th, t0)
	w.ProcessEvent(first, t0)
	for _, s := range samples {
		s.observe(w)
	}
	return w
}

// observe feeds the sample to w, as of the one open connection 10.0.0.1:443.
func (s connSample) observe(w *Watchdog) {
	s.c.ID, s.c.Remote, s.c.Open = 1, "10.0.0.1:443", true
	w.ObserveActivity(Activity{Conns: []Conn{s.c}}, at(s.at))
}

// TestConnFigures checks the connection rule's arithmetic sample by
// sample, at its edges: the bytes of content a response brought beyond
// the keep-alives its segments may be, a request of just more than a
// kilobyte beyond them, an answer of just more than 64 KB, the third
// retransmission, and a kernel's last-arrival time that moves a
// millisecond with nothing arriving.
func TestConnFigures(t *testing.T) {
	t.Parallel()
	ms, s := time.Millisecond, time.Second
	evidence := func(w *Watchdog, now time.Duration) (Evidence, bool) {
		var e Evidence
		_, _, _, ok := w.connDue()
		w.connEvidence(&e, at(now))
		return e, ok
	}

	// Content: 800 B in 20 segments over 2 s, of which 3 segments' worth
	// may be keep-alives (one a second, and the first); then 1,000 B in
	// one segment.
	w := sampledConns(testThresholds(), initEv,
		connSample{1 * s, Conn{Sent: 22 << 10, SegsOut: 1, SendAgo: 900 * ms}},
		connSample{3 * s, Conn{Sent: 22 << 10, SegsOut: 1, Received: 800, SegsIn: 20, RecvAgo: 100 * ms}},
		connSample{5 * s, Conn{Sent: 22 << 10, SegsOut: 1, Received: 1800, SegsIn: 21}})
	if e, ok := evidence(w, 10*s); !ok || e.Earned != EarnedContent || e.Content != 800-3*128+1000-128 || e.ConnQuiet != 5*s {
		t.Errorf("content: excused %v, %+v", ok, e)
	}
	if due, _, _, _ := w.connDue(); due != at(65*s) {
		t.Errorf("content excuses until %v, want an idle timeout past its last arrival (1m5s)", due.Sub(t0))
	}
	// The same read late: nothing while it waits unread, and what comes
	// once it is read counts from there.
	w = sampledConns(testThresholds(), initEv,
		connSample{1 * s, Conn{Sent: 22 << 10, SegsOut: 1}},
		connSample{3 * s, Conn{Sent: 22 << 10, SegsOut: 1, Received: 100, Unread: 700, SegsIn: 20, RecvAgo: 100 * ms}})
	if e, ok := evidence(w, 4*s); ok || e.Content != 0 {
		t.Errorf("content left unread: excused %v, %+v", ok, e)
	}
	connSample{5 * s, Conn{Sent: 22 << 10, SegsOut: 1, Received: 1800, SegsIn: 21}}.observe(w)
	if e, ok := evidence(w, 10*s); !ok || e.Content != 1000-128 {
		t.Errorf("content read at last: excused %v, %+v", ok, e)
	}

	// Text mode: a request is more than 1 KB beyond a keep-alive a
	// segment; the model is waited on from when it was sent.
	text := testThresholds()
	text.TextMode = true
	for _, tc := range []struct {
		sent   int64
		waited bool
	}{{1024 + 128, false}, {1024 + 128 + 1, true}} {
		w := sampledConns(text, textMode,
			connSample{1 * s, Conn{Sent: 100, SegsOut: 2, SendAgo: 500 * ms}},
			connSample{3 * s, Conn{Sent: 100 + tc.sent, SegsOut: 3, SendAgo: 500 * ms}},
			connSample{5 * s, Conn{Sent: 100 + tc.sent, SegsOut: 3, SendAgo: 2500 * ms, Received: 66, SegsIn: 1}})
		e, ok := evidence(w, 6*s)
		if ok != tc.waited || tc.waited && (e.Earned != EarnedKeepAlive || e.ModelWait != 3500*ms || e.ConnQuiet != s) {
			t.Errorf("text mode, a send of %d B: excused %v, %+v", tc.sent, ok, e)
		}
	}
	// Text mode: the request is answered by more than 64 KB of content;
	// keep-alives after an answer excuse nothing.
	for _, tc := range []struct {
		answer int64
		waited bool
	}{{64<<10 + 128, true}, {64<<10 + 128 + 1, false}} {
		w := sampledConns(text, textMode,
			connSample{1 * s, Conn{Sent: 22 << 10, SegsOut: 1}},
			connSample{3 * s, Conn{Sent: 22 << 10, SegsOut: 1, Received: tc.answer, SegsIn: 1, RecvAgo: s}},
			connSample{5 * s, Conn{Sent: 22 << 10, SegsOut: 1, Received: tc.answer + 30, SegsIn: 2}})
		if _, _, why, _ := w.connDue(); (why == EarnedKeepAlive) != tc.waited {
			t.Errorf("text mode, an answer of %d B: the keep-alives after it excuse %v", tc.answer, why == EarnedKeepAlive)
		}
	}

	// A peer gone: its third retransmission in a row, not its second.
	for _, tc := range []struct {
		retransmits int
		alive       bool
	}{{2, true}, {3, false}} {
		w := sampledConns(testThresholds(), initEv,
			connSample{1 * s, Conn{Sent: 22 << 10, SegsOut: 1}},
			connSample{3 * s, Conn{Sent: 22<<10 + 16, SegsOut: 2, Received: 18, SegsIn: 1, Unacked: 1, Retransmits: tc.retransmits}})
		if _, ok := evidence(w, 4*s); ok != tc.alive {
			t.Errorf("%d retransmissions: the peer excuses %v, want %v", tc.retransmits, ok, tc.alive)
		}
	}

	// The kernel's last-arrival time, kept in milliseconds, moves with
	// nothing arriving: no arrival, no gap learned.
	w = sampledConns(testThresholds(), initEv,
		connSample{1 * s, Conn{Sent: 22 << 10, SegsOut: 1}},
		connSample{3 * s, Conn{Sent: 22 << 10, SegsOut: 1, Received: 66, SegsIn: 1, RecvAgo: s}},
		connSample{5 * s, Conn{Sent: 22 << 10, SegsOut: 1, Received: 66, SegsIn: 1, RecvAgo: 3*s - ms}},
		connSample{7 * s, Conn{Sent: 22 << 10, SegsOut: 1, Received: 66, SegsIn: 1, RecvAgo: 5*s - 2*ms}})
	if e, ok := evidence(w, 7*s); !ok || e.Period != 0 {
		t.Errorf("a drifting last arrival: excused %v, %+v", ok, e)
	}
}
