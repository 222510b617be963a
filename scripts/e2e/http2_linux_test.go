package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/fakeagent"
)

// Issue 32's binary test of a cursor-like agent on one HTTP/2 stream: the
// verdict on a heartbeat-only think does not depend on the phase of the
// two sides' timers.

// capFlags sets the longest silence keep-alives alone excuse, under a
// max_silence that does not bound it.
func capFlags(d time.Duration) []string {
	return []string{"--max-silence", (2 * d).String(), "--max-keepalive-wait", d.String()}
}

// h2cServer serves cursor's Run RPC over HTTP/2 without TLS: after the
// request, a heartbeat-only message every cadence, the first phase after
// the client's first heartbeat is due (both count from the request); then,
// after think, the answer and the end of the stream, or, if think is 0,
// never (a parked turn). It returns the URL to call.
func h2cServer(t *testing.T, clientBeat, cadence, phase, think time.Duration) string {
	t.Helper()
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{Protocols: &p, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "application/connect+proto")
		w.WriteHeader(http.StatusOK)
		if rc.Flush() != nil {
			return
		}
		// The request, then the client's heartbeats until it leaves.
		in := bufio.NewReader(r.Body)
		var head [5]byte
		if _, err := io.ReadFull(in, head[:]); err != nil {
			return
		}
		if _, err := io.CopyN(io.Discard, in, int64(head[1])<<24|int64(head[2])<<16|int64(head[3])<<8|int64(head[4])); err != nil {
			return
		}
		start := time.Now()
		gone := make(chan struct{})
		go func() {
			defer close(gone)
			io.Copy(io.Discard, in)
		}()
		send := func(b []byte) bool {
			_, err := w.Write(b)
			return err == nil && rc.Flush() == nil
		}
		var answer <-chan time.Time
		if think > 0 {
			answer = time.After(think)
		}
		beat := time.NewTimer(time.Until(start.Add(clientBeat + phase)))
		defer beat.Stop()
		for {
			select {
			case <-beat.C:
				if !send(fakeagent.Envelope(0, make([]byte, fakeagent.ServerBeat))) {
					return
				}
				beat.Reset(cadence)
			case <-answer:
				for i := range 8 {
					if !send(fakeagent.Envelope(0, []byte(fmt.Sprintf("%03d %s", i, strings.Repeat("Thought it through. ", 25))))) {
						return
					}
				}
				send(fakeagent.Envelope(0x02, []byte("{}")))
				return
			case <-gone:
				return
			case <-r.Context().Done():
				return
			}
		}
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/agent.v1.AgentService/Run"
}

// TestCursorHTTP2Heartbeats (issue 32, case 2): a cursor-like agent on one
// HTTP/2 stream, heartbeats both ways (the client's every 5 s, the
// server's every 5 s or 15 s, at several phases after the client's): a
// healthy think past the idle timeout is answered, and a parked turn
// (heartbeats forever) is stopped at the keep-alive cap, at every phase.
// The twelve runs mostly wait: they go side by side.
func TestCursorHTTP2Heartbeats(t *testing.T) {
	t.Parallel()
	idle, keepAliveCap := scale(60*time.Second), scale(240*time.Second)
	clientBeat := scale(5 * time.Second)
	type run struct {
		name   string
		parked bool
		think  time.Duration
		wait   func() result
	}
	var runs []run
	for _, cadence := range []time.Duration{5 * time.Second, 15 * time.Second} {
		for _, phase := range []time.Duration{0, time.Second, 3 * time.Second} {
			for _, parked := range []bool{false, true} {
				c := run{name: fmt.Sprintf("server every %v, %v after the client, healthy", cadence, phase), parked: parked,
					think: 2 * keepAliveCap / 3} // past the idle timeout, short of the cap
				if parked {
					c.name, c.think = strings.TrimSuffix(c.name, "healthy")+"parked", 0
				}
				agent := steps("connect", h2cServer(t, clientBeat, scale(cadence), scale(phase), c.think), clientBeat.String(), "exit", "0")
				args := append([]string{"--restarts", "0", "--idle-timeout", idle.String()}, capFlags(keepAliveCap)...)
				c.wait = wrapperStart(t, func(cmd *exec.Cmd) { cmd.Env = append(cmd.Env, agent) }, append(args, "--", "fix it")...)
				runs = append(runs, c)
			}
		}
	}
	results := make([]result, len(runs))
	for i, c := range runs {
		results[i] = c.wait()
	}
	for i, c := range runs {
		r := results[i]
		t.Run(c.name, func(t *testing.T) {
			if !c.parked {
				if h := firstRecord(t, r.logDir, "hang_detected"); r.code != 0 || h != nil || !bytes.Contains(r.stdout, []byte(`"result":"000 Thought it through.`)) {
					t.Fatalf("a healthy think of %v: exit %d, hang %v; stderr %s", c.think, r.code, h, r.stderr)
				}
				return
			}
			silence, _ := hangSilence(t, r)
			if silence < keepAliveCap || silence > keepAliveCap+2*time.Second || r.code != 124 {
				t.Errorf("parked: hung after %v of silence, exit %d, want at the keep-alive cap (%v), 124", silence, r.code, keepAliveCap)
			}
		})
	}
}
