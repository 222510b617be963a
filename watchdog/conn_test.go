package watchdog

import (
	"strings"
	"testing"
	"time"
)

// TestStreamedAt tells a response streaming in from its look-alikes, one
// sample at a time (with the previous sample of the same socket, if any).
func TestStreamedAt(t *testing.T) {
	t.Parallel()
	s := time.Second
	now := at(100 * s)
	since := at(50 * s) // the silence began
	live := Conn{ID: 1, Remote: "127.0.0.1:443", Open: true, Received: 5000, Sent: 800, RecvAgo: 2 * s, SendAgo: 22 * s}
	with := func(f func(*Conn)) Conn { c := live; f(&c); return c }
	for _, tc := range []struct {
		name    string
		c, prev Conn
		hasPrev bool
		want    bool
	}{
		{"measured: live request, lastsnd 22s lastrcv 2s", live, Conn{}, false, true},
		{"same, a ping read since the last sample", live, with(func(c *Conn) { c.Received -= 40 }), true, true},
		{"idle pooled connection, both 22s", with(func(c *Conn) { c.RecvAgo = 22 * s }), Conn{}, false, false},
		{"server pings, the agent answers", with(func(c *Conn) { c.RecvAgo, c.SendAgo = 2*s, 2*s-time.Millisecond }), Conn{}, false, false},
		{"the agent pings, the server acks", with(func(c *Conn) { c.RecvAgo, c.SendAgo = 2*s, 2*s+30*time.Millisecond }), Conn{}, false, false},
		{"a slow ack, but as many bytes sent as read", with(func(c *Conn) { c.SendAgo = 5 * s }),
			with(func(c *Conn) { c.Received, c.Sent = 4960, 760 }), true, false},
		{"data the agent never reads", with(func(c *Conn) { c.Unread = 40 }), Conn{}, false, false},
		{"half-closed (CLOSE_WAIT)", with(func(c *Conn) { c.Open = false }), Conn{}, false, false},
		{"nothing ever received", with(func(c *Conn) { c.Received = 0 }), Conn{}, false, false},
		{"received only before the silence", with(func(c *Conn) { c.RecvAgo = 60 * s }), Conn{}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := streamedAt(tc.c, tc.prev, tc.hasPrev, since, now)
			if ok != tc.want {
				t.Fatalf("streaming = %v, want %v", ok, tc.want)
			}
			if ok && !got.Equal(now.Add(-tc.c.RecvAgo)) {
				t.Errorf("at %v, want %v", got.Sub(t0), now.Add(-tc.c.RecvAgo).Sub(t0))
			}
		})
	}
}

// A link is one connection's traffic over time, for a fake clock:
// pings arrive every ping from the start (0 = none) until pingsEnd (0 =
// forever); echo answers each; the agent sends its own keep-alive every
// keepAlive (acked at once), or leaves what arrives unread.
type link struct {
	ping, pingsEnd, keepAlive time.Duration
	echo, unread, closeWait   bool
}

// at is the connection as the kernel reports it at d after the request
// was sent (at 0, with the agent's last output).
func (l link) at(d time.Duration) Conn {
	c := Conn{ID: 7, Remote: "127.0.0.1:443", Open: !l.closeWait, Sent: 500, Received: 300, RecvAgo: d, SendAgo: d}
	last := func(every time.Duration) (time.Duration, int64) {
		upTo := d
		if l.pingsEnd > 0 {
			upTo = min(d, l.pingsEnd)
		}
		n := int64(upTo / every)
		return time.Duration(n) * every, n
	}
	if l.ping > 0 {
		t, n := last(l.ping)
		if n > 0 {
			c.RecvAgo = d - t
			if l.unread {
				c.Unread = 40 * n
			} else {
				c.Received += 40 * n
			}
			if l.echo {
				c.SendAgo, c.Sent = d-t-time.Millisecond, c.Sent+40*n
			}
		}
	}
	if l.keepAlive > 0 {
		t, n := last(l.keepAlive)
		if n > 0 {
			c.SendAgo, c.RecvAgo = d-t, d-t-20*time.Millisecond
			c.Sent, c.Received = c.Sent+40*n, c.Received+40*n
		}
	}
	return c
}

// TestConnEvidence drives the connection rule with a fake clock: a
// response streaming in excuses silence an idle timeout past its last data,
// up to max_silence; its look-alikes excuse nothing. In text mode the
// agent's own work is never capped, the connection alone is.
func TestConnEvidence(t *testing.T) {
	t.Parallel()
	s := time.Second
	never := time.Duration(-1)
	for _, tc := range []struct {
		name     string
		text     bool
		l        link
		cpuUntil time.Duration // the agent burns CPU until then
		tool     bool          // a tool process runs throughout
		wantHang time.Duration // -1: none by 1000 s
	}{
		{"thinking: pings every 15s, forever", false, link{ping: 15 * s}, 0, false, 300 * s},
		{"thinking, then the stream dies", false, link{ping: 15 * s, pingsEnd: 100 * s}, 0, false, 150 * s},
		{"dead: nothing received", false, link{}, 0, false, 60 * s},
		{"half-closed", false, link{ping: 15 * s, closeWait: true}, 0, false, 60 * s},
		{"server pings, the agent answers", false, link{ping: 15 * s, echo: true}, 0, false, 60 * s},
		{"the agent pings, the server acks", false, link{keepAlive: 15 * s}, 0, false, 60 * s},
		{"data the agent never reads", false, link{ping: 15 * s, unread: true}, 0, false, 60 * s},
		{"text mode: busy, not capped", true, link{}, 2000 * s, false, never},
		{"text mode: a tool runs, not capped", true, link{}, 0, true, never},
		{"stream-json mode: a tool no call owns excuses nothing", false, link{}, 0, true, 60 * s},
		{"text mode: busy then pings: pings capped from the busy end", true, link{ping: 15 * s}, 500 * s, false, 802 * s},
		{"text mode: pings alone are capped", true, link{ping: 15 * s}, 0, false, 300 * s},
		{"text mode: dead", true, link{}, 0, false, 60 * s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			th := testThresholds()
			th.ActivityProbe, th.MaxSilence, th.TextMode = true, 300*s, tc.text
			w := New(th, t0)
			w.ProcessEvent(thinking, at(0))
			now := at(0)
			for now.Before(at(1000 * s)) {
				next := w.Decide(now).Next
				if next.IsZero() {
					t.Fatal("no next deadline")
				}
				now = next
				d := now.Sub(t0)
				if w.WantsActivity(now) {
					a := Activity{Conns: []Conn{tc.l.at(d)}}
					if tc.tool {
						a.Procs = []Proc{{Pid: 7, Started: at(time.Second), Under: true, OwnSession: true}}
					}
					if tc.cpuUntil > 0 {
						a.CPU = min(d, tc.cpuUntil) / 2
					}
					w.ObserveActivity(a, now)
				}
				if v, r := w.Check(now); v == Hang {
					if d != tc.wantHang {
						t.Fatalf("hang at %v, want %v; %s", d, tc.wantHang, r.Describe())
					}
					if tc.l.ping > 0 && !tc.l.echo && !tc.l.unread && !tc.l.closeWait && !strings.Contains(r.Describe(), "the connection to 127.0.0.1:443 received data") {
						t.Errorf("the evidence is not said: %s", r.Describe())
					}
					return
				}
			}
			if tc.wantHang != never {
				t.Fatalf("no hang by %v, want one at %v", now.Sub(t0), tc.wantHang)
			}
		})
	}
}
