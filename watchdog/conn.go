package watchdog

import (
	"fmt"
	"time"
)

// A Conn is one TCP connection of the agent's own processes (its process
// group: not its tools, not leftovers), as the kernel reported it at a
// sample.
//
// # Why
//
// A model that thinks sends nothing the agent prints: Claude Code's stdout
// stays silent for minutes while its request's socket receives SSE pings,
// and its CPU and bytes read stay under the floors (a hung agent's look).
// The kernel tells them apart: the live request's socket last sent data
// long ago (the request) and received some a moment ago (lastsnd 22 s,
// lastrcv 2 s measured); a dead one receives nothing, or is half-closed.
type Conn struct {
	ID       uint64 // the socket's inode: the same socket from sample to sample
	Remote   string // "127.0.0.1:443"
	Open     bool   // established: not half-closed (CLOSE_WAIT) or closing
	Received int64  // bytes the agent has read from it: received minus Unread
	Unread   int64  // bytes received that the agent has not read (receive queue)
	Sent     int64  // bytes it sent
	// RecvAgo and SendAgo are how long before the sample data last
	// arrived and was last sent (tcpi_last_data_recv, _sent).
	RecvAgo, SendAgo time.Duration
}

// pongGap is how long after its last send a connection must receive data
// for that data to be more than an answer: a server's ack of the agent's
// own keep-alive arrives within a round trip (milliseconds, at worst a
// second or so over a bad link), a streamed response's pings keep coming
// while the request lies further and further back.
const pongGap = time.Second

// streamRatio is how many times more bytes than it sent a connection must
// have read between two samples for the traffic to count as a response
// coming in rather than keep-alives going both ways (a ping and its answer
// are about the same size).
const streamRatio = 4

// streamedAt says whether c, sampled at now, shows a response streaming
// in since the silence began at since, and when its data last arrived.
// prev is the same socket at the previous sample, if there was one.
func streamedAt(c, prev Conn, hasPrev bool, since, now time.Time) (time.Time, bool) {
	recv, send := now.Add(-c.RecvAgo), now.Add(-c.SendAgo)
	switch {
	case !c.Open || c.Received == 0:
		return time.Time{}, false // half-closed, or nothing ever came
	case c.Unread > 0:
		return time.Time{}, false // data waits unread: a wedged agent still "receives"
	case !recv.After(since):
		return time.Time{}, false // nothing arrived in this silence
	case recv.Sub(send) < pongGap:
		return time.Time{}, false // it answered, or was answered: ping-pong
	}
	if hasPrev {
		read, sent := c.Received-prev.Received, c.Sent-prev.Sent
		if sent > 0 && read < streamRatio*sent {
			return time.Time{}, false // both directions moved alike
		}
	}
	return recv, true
}

// observeConns looks for a response streaming in on the agent's
// connections and remembers each socket for the next sample.
func (w *Watchdog) observeConns(conns []Conn, now time.Time) {
	seen := make(map[uint64]Conn, len(conns))
	for _, c := range conns {
		prev, ok := w.conns[c.ID]
		seen[c.ID] = c
		if at, ok := streamedAt(c, prev, ok, w.last, now); ok && at.After(w.streamed) {
			w.streamed, w.evidence.Conn = at, c.Remote
		}
	}
	w.conns = seen
}

// connDue is when a silence the model connection excuses ends: an idle
// timeout after its data last arrived, never past its cap (see idleDue).
func (w *Watchdog) connDue() (time.Time, bool) {
	if !w.streamed.After(w.last) {
		return time.Time{}, false
	}
	return w.streamed.Add(w.th.IdleTimeout), true
}

// describeConn says what the connection evidence was at a check.
func (e Evidence) describeConn() string {
	if e.Conn == "" {
		return ""
	}
	return fmt.Sprintf("; the connection to %s received data %s before", e.Conn, Round(max(e.ConnQuiet, 0)))
}
