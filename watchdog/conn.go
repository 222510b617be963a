package watchdog

import (
	"fmt"
	"time"

	"cursor-wrap/words"
)

// A Conn is one TCP connection of the agent process or its runtime
// process (not a helper's, a tool's or a leftover's), as the kernel
// reported it at a sample (sock_diag's tcp_info, what `ss -ti` shows).
//
// # Why
//
// A model that thinks sends nothing the agent prints: Claude Code's stdout
// stays silent for minutes while its request's socket receives SSE pings,
// and its CPU and bytes read stay under the floors (a hung agent's look).
// The kernel tells a live wait from a dead one: a live one keeps
// receiving, in whatever way its transport keeps a connection alive (SSE
// pings or comments, WebSocket ping/pong, HTTP/2 PING or heartbeat
// frames, whichever side starts them); a dead one receives nothing, stops
// acknowledging, or is half-closed.
type Conn struct {
	ID       uint64 // the socket's inode: the same socket from sample to sample
	Remote   string // "127.0.0.1:443"
	Open     bool   // established: not half-closed (CLOSE_WAIT) or closing
	Received int64  // bytes the agent has read from it: received minus Unread
	Unread   int64  // bytes received that the agent has not read (receive queue)
	Sent     int64  // bytes it sent
	// SegsIn and SegsOut count the segments that carried data in and out
	// (tcpi_data_segs_in, _out); 0 where the kernel does not count them.
	SegsIn, SegsOut int64
	// RecvAgo and SendAgo are how long before the sample data last
	// arrived and was last sent (tcpi_last_data_recv, _sent).
	RecvAgo, SendAgo time.Duration
	// Unacked is the segments sent and not acknowledged, Retransmits the
	// retransmission timeouts in a row of the oldest of them
	// (tcpi_retransmits): a peer that stopped acknowledging.
	Unacked, Retransmits int
}

// arrived is what the kernel received on c: what the agent read, and
// what waits for it.
func (c Conn) arrived() int64 { return c.Received + c.Unread }

// The sizes and rates that tell keep-alives from content, requests and
// answers on a connection, whatever its transport (docs/hang-rules.md).
const (
	// keepAliveRecord is the most a keep-alive takes on the wire, per
	// segment: the largest on record is OpenAI's keepalive SSE event
	// (70 B) over HTTP/2 and TLS 1.3 (9 B frame, 22 B of record), about
	// 101 B; Anthropic's ping over chunked HTTP/1.1 and TLS is 66 B, a
	// WebSocket ping 8–30 B, an HTTP/2 PING 17–39 B, cursor's heartbeats
	// 16 and 18 B (40 B with TLS). Content records are larger, or denser.
	keepAliveRecord = 128
	// keepAliveGap is the shortest gap between two keep-alives on record
	// (cursor's client heartbeat, every 5 s, is the most frequent): bytes
	// that arrive in more segments than that allows are content, however
	// small each is (cursor's protobuf text deltas).
	keepAliveGap = time.Second
	// requestBytes is the least a request sends beyond keep-alives: the
	// smallest the agents on record send is several KB (Codex's turn over
	// a WebSocket 22 KB, its warm-up 36 KB; Claude Code's with 24 tools
	// more).
	requestBytes = 1 << 10
	// answerBytes is how much content must come back after a request for
	// the request to count as answered, in text mode (where no stream
	// says when a model call ends): more than a server sends before it
	// thinks, which for OpenAI's Responses API echoes the request's
	// instructions and tools twice (response.created, in_progress), about
	// twice Codex's 22 KB.
	answerBytes = 64 << 10
	// missedPeriods is how many of its learned keep-alive periods a peer
	// may send nothing before it no longer counts as alive.
	missedPeriods = 3
	// deadRetransmits is the retransmission timeouts in a row (about a
	// second and more without an acknowledgement, RTOs doubling from
	// 200 ms) after which a peer counts as gone.
	deadRetransmits = 3
)

// connState is what the watchdog knows of one connection of the agent's
// from the samples it saw.
type connState struct {
	c  Conn      // at the last sample
	at time.Time // that sample's time
	// recvAt is when data last arrived on it, as the last sample said;
	// period is the longest mean gap between two arrivals seen on it.
	recvAt time.Time
	period time.Duration
	// In the current silence: aliveAt is the last arrival while its peer
	// was answering (a sign of life, content or keep-alive), contentAt
	// the last arrival of content, content how many bytes of it came.
	aliveAt, contentAt time.Time
	content            int64
	// asked is set from a request (a send of more than keep-alives) until
	// more than answerBytes of content came back (answered counts them),
	// at askedAt: in text mode, the connection's own model call.
	asked    bool
	askedAt  time.Time
	answered int64
}

// allowance is how many bytes in segs segments over dt can be keep-alives.
func allowance(segs int64, dt time.Duration, first bool) int64 {
	if !first {
		segs = min(segs, 1+int64(dt/keepAliveGap))
	}
	return keepAliveRecord * segs
}

// observeConns takes a sample of the agent's connections: what arrived on
// each since its last sample (keep-alives, content), what was sent (a
// request), whether its peer still answers, and the gap between its
// arrivals. A connection gone from the sample keeps what it earned (the
// agent reconnecting), until it is no longer in the silence.
func (w *Watchdog) observeConns(conns []Conn, now time.Time) {
	if w.conns == nil {
		w.conns = map[uint64]*connState{}
	}
	seen := make(map[uint64]bool, len(conns))
	for _, c := range conns {
		seen[c.ID] = true
		st, known := w.conns[c.ID]
		if !known {
			st = &connState{}
			w.conns[c.ID] = st
		}
		w.observeConn(st, c, known, now)
	}
	for id, st := range w.conns {
		if !seen[id] && !st.aliveAt.After(w.last) && !st.contentAt.After(w.last) {
			delete(w.conns, id)
		}
	}
}

// observeConn updates one connection's state from a sample of it; known
// says whether it was sampled before.
func (w *Watchdog) observeConn(st *connState, c Conn, known bool, now time.Time) {
	prev, dt := st.c, now.Sub(st.at)
	if !known {
		prev, dt = Conn{}, 0 // its whole history, in an unknown time
	}
	var recvAt time.Time
	if c.arrived() > 0 {
		recvAt = now.Add(-c.RecvAgo)
	}
	arrived := c.arrived() - prev.arrived()
	arrivals := c.SegsIn - prev.SegsIn
	if c.SegsIn == 0 {
		arrivals = min(arrived, 1) // a kernel that does not count data segments
	}
	content := max(arrived-allowance(arrivals, dt, !known), 0)
	request := c.Sent - prev.Sent - allowance(c.SegsOut-prev.SegsOut, dt, !known)
	// The agent's own model call, as its connection shows it: a request,
	// and less than an answer's worth back since.
	if request > requestBytes {
		st.asked, st.askedAt, st.answered = true, now.Add(-c.SendAgo), 0
	}
	if st.asked {
		if st.answered += content; st.answered > answerBytes {
			st.asked = false
		}
	}
	// The gap between two arrivals, where both fell in this silence and
	// no sample was missed between them: a gap across output, or across
	// samples not taken, is no keep-alive period.
	newer := arrivals > 0 && recvAt.After(st.recvAt)
	if newer && known && st.recvAt.After(w.last) && !st.at.Before(w.last) {
		st.period = max(st.period, recvAt.Sub(st.recvAt)/time.Duration(arrivals))
	}
	if newer {
		st.recvAt = recvAt
	}
	// Content counts where it is known to have come in this silence: on
	// a sample after the previous one of the same silence; and only what
	// the agent reads: a wedged agent's kernel goes on receiving a
	// response into its queue for as long as the stream lasts.
	if newer && content > 0 && c.Unread == 0 && known && !st.at.Before(w.last) && recvAt.After(w.last) {
		st.contentAt, st.content = recvAt, st.content+content
	}
	switch {
	case !c.Open || c.Retransmits >= deadRetransmits:
		st.aliveAt = time.Time{} // Its peer is gone: what it earned too.
	case c.Unread > 0:
		// Data waits unread: the agent is not at its connection (a wedged
		// agent's kernel still receives). It earns nothing new.
	case !recvAt.IsZero() && recvAt.After(w.last) && recvAt.After(st.aliveAt):
		st.aliveAt = recvAt
	}
	st.c, st.at = c, now
}

// newSilence forgets what connections earned in an earlier silence.
func (w *Watchdog) newSilence() {
	for _, st := range w.conns {
		st.aliveAt, st.contentAt, st.content = time.Time{}, time.Time{}, 0
	}
}

// waitingOnModel reports whether the agent waits on its model, so that a
// live peer's keep-alives may excuse its silence: in stream-json mode
// while its stream's model call is open (its profile's table) and none of
// its tools runs; in text mode, where no stream says so, while st shows a
// request not answered yet.
func (w *Watchdog) waitingOnModel(st *connState) bool {
	if w.th.TextMode {
		return st.asked
	}
	return w.modelOpen && w.calls.tools == 0
}

// liveFor is how long after its last arrival a connection's peer counts
// as alive: an idle timeout, or missedPeriods of its own keep-alive
// period if that is longer.
func (w *Watchdog) liveFor(st *connState) time.Duration {
	return max(w.th.IdleTimeout, missedPeriods*st.period)
}

// Why a connection excused a silence.
const (
	EarnedContent   = "content"     // a response streaming in
	EarnedKeepAlive = "keep-alives" // a live peer while the model is waited on
)

// connDue is when a silence the agent's connections excuse ends, and the
// connection that excuses it furthest and why: content excuses an idle
// timeout past its arrival, up to max_silence; a live peer's keep-alives,
// while the model is waited on, excuse liveFor past the last of them, up
// to max_keepalive_wait. Both caps count from the start of the silence
// (in text mode from the agent's last work), whatever connections the
// agent opened and closed meanwhile. ok is false when none excuses.
func (w *Watchdog) connDue() (due time.Time, by *connState, why string, ok bool) {
	from := w.last
	if w.th.TextMode && w.workedAt.After(from) {
		from = w.workedAt
	}
	contentCap := from.Add(w.maxSilence())
	keepAliveCap := from.Add(min(w.th.MaxKeepAliveWait, w.maxSilence()))
	consider := func(t time.Time, st *connState, kind string) {
		if !t.After(due) {
			return
		}
		due, by, why, ok = t, st, kind, true
	}
	for _, st := range w.conns {
		if st.contentAt.After(w.last) {
			consider(minTime(st.contentAt.Add(w.th.IdleTimeout), contentCap), st, EarnedContent)
		}
		if st.aliveAt.After(w.last) && w.waitingOnModel(st) {
			consider(minTime(st.aliveAt.Add(w.liveFor(st)), keepAliveCap), st, EarnedKeepAlive)
		}
	}
	return due, by, why, ok
}

// connEvidence fills in the connection that excused the silence at now,
// and why.
func (w *Watchdog) connEvidence(e *Evidence, now time.Time) {
	_, st, why, ok := w.connDue()
	if !ok || !st.aliveAt.After(w.last) && !st.contentAt.After(w.last) {
		return
	}
	e.Conn, e.Earned = st.c.Remote, why
	e.ConnQuiet = now.Sub(maxTime(st.aliveAt, st.contentAt))
	e.Content, e.Period = st.content, st.period
	switch {
	case w.th.TextMode && st.asked:
		e.ModelWait = now.Sub(st.askedAt)
	case !w.th.TextMode && w.modelOpen:
		e.ModelWait = now.Sub(w.modelSince)
	}
}

// describeConn says what the connection evidence was at a check.
func (e Evidence) describeConn() string {
	switch e.Earned {
	case EarnedContent:
		return fmt.Sprintf("; the connection to %s received %d B of a response, the last %s before", e.Conn, e.Content, words.Duration(max(e.ConnQuiet, 0)))
	case EarnedKeepAlive:
		s := fmt.Sprintf("; the connection to %s received data %s before (keep-alives", e.Conn, words.Duration(max(e.ConnQuiet, 0)))
		if e.Period > 0 {
			s += " every " + words.Duration(e.Period)
		}
		if e.ModelWait > 0 {
			s += ", the model waited on for " + words.Duration(e.ModelWait)
		}
		return s + ")"
	}
	return ""
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
