package ptyproxy

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// Whose work and whose connection count (issue 32, "Whose"), with real
// processes: a shell script is the agent, and the fake agent (this test
// binary) its busy children, helpers and orphans.

// runShell runs script under the proxy as the agent, /bin/sh -c, with
// $SELF the fake agent's command.
func runShell(t *testing.T, o Options, script string) Outcome {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if o.Stdout == nil {
		o.Stdout = &output{}
	}
	o.Path, o.Args = "/bin/sh", []string{"-c", script}
	o.Env = append(agentEnv(), "SELF="+self+" "+fakeagent.Subcommand)
	if o.KillGrace == 0 {
		o.KillGrace = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// probing are thresholds with the activity probe on: an idle timeout of
// 2s, and max_silence far past it.
func probing(text bool) watchdog.Thresholds {
	th := fast()
	th.ActivityProbe, th.IdleTimeout, th.MaxSilence, th.TextMode = true, 2*time.Second, 20*time.Second, text
	return th
}

const initJSON = `{"type":"system","subtype":"init","session_id":"s-1"}`

// TestWhoseWork: the work of an orphan left behind (double-forked into a
// session of its own) and of a helper started before the open call never
// excuse a silence; the open call's own tool does, and so, in text mode,
// does a child still under the agent. The work is reading, which a loaded
// machine starves less than spinning.
func TestWhoseWork(t *testing.T) {
	t.Parallel()
	if !procAvailable() {
		t.Skip("no /proc")
	}
	for _, tc := range []struct {
		name   string
		text   bool
		script string
		hang   bool
	}{
		{"a busy orphan", false, `(setsid $SELF read 30s >/dev/null 2>&1 &)
echo '` + initJSON + `'; sleep 30`, true},
		{"a busy orphan, text mode", true, `(setsid $SELF read 30s >/dev/null 2>&1 &)
echo starting; sleep 30`, true},
		{"a busy helper started before the call", false, `$SELF read 30s >/dev/null 2>&1 &
sleep 1; echo '` + undeclared + `'; sleep 30`, true},
		{"the call's tool at work", false, `echo '` + undeclared + `'
$SELF read 5s >/dev/null 2>&1; echo '{"type":"result","subtype":"success"}'`, false},
		{"a child at work, text mode", true, `echo starting; $SELF read 5s >/dev/null 2>&1; echo done`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := Options{Thresholds: probing(tc.text)}
			if !tc.text {
				o.Parse = stream.Parse
			}
			res := runShell(t, o, tc.script)
			if got := res.Cause == Hung; got != tc.hang {
				t.Fatalf("hung = %v, want %v; %+v", got, tc.hang, res)
			}
			if tc.hang {
				// Stopped at the idle timeout: no window was excused.
				if e := res.Reason.Evidence; e.ActiveWindows != 0 || e.Extended != 0 {
					t.Errorf("excused by what is not the agent's: %+v", e)
				}
				return
			}
			if res.LongestSilence < 3*time.Second {
				t.Errorf("the longest silence let pass was %v, want the tool's 5s", res.LongestSilence)
			}
		})
	}
}

// TestWhoseEvidenceNamesTheTool: the evidence says which process earned a
// silence, and for which call.
func TestWhoseEvidenceNamesTheTool(t *testing.T) {
	t.Parallel()
	if !procAvailable() {
		t.Skip("no /proc")
	}
	th := probing(false)
	th.MaxSilence = 3 * time.Second
	res := runShell(t, Options{Thresholds: th, Parse: stream.Parse}, `echo '`+undeclared+`'
$SELF read 30s >/dev/null 2>&1`)
	e := res.Reason.Evidence
	if res.Cause != Hung || e.ActiveWindows == 0 || e.Pid == 0 || e.CallID != "c1" {
		t.Fatalf("outcome %v, evidence %+v: want the tool's pid and call c1", res.Cause, e)
	}
}

// pinger is a model server that, for every connection, reads what comes
// and sends "ping" every 100ms until the test ends: a model thinking, as
// the fake agent's net step reads it (it prints no ping).
func pinger(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				go func() { _, _ = c.Read(make([]byte, 64<<10)) }()
				for tick := time.NewTicker(100 * time.Millisecond); ; {
					select {
					case <-done:
						return
					case <-tick.C:
						if _, err := c.Write([]byte("ping\n")); err != nil {
							return
						}
					}
				}
			})
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		close(done)
		wg.Wait()
	})
	return ln.Addr().String()
}

// TestWhoseConnection: the connection of a helper in the agent's own
// process group (an MCP server following a feed) is not the agent's model
// connection and excuses nothing; the same keep-alives on the agent's own
// connection, while its model call is open, do.
func TestWhoseConnection(t *testing.T) {
	t.Parallel()
	if !procAvailable() {
		t.Skip("no /proc")
	}
	addr := pinger(t)
	th := probing(false)
	th.MaxSilence = 4 * time.Second
	res := runShell(t, Options{Thresholds: th, Parse: stream.Parse}, `$SELF net `+addr+` read >/dev/null 2>&1 &
echo '`+initJSON+`'; sleep 30`)
	if e := res.Reason.Evidence; res.Cause != Hung || e.Conn != "" || e.Extended != 0 {
		t.Errorf("a helper's connection: outcome %v, evidence %+v; want stopped at the idle timeout", res.Cause, e)
	}
	res = runShell(t, Options{Thresholds: th, Parse: stream.Parse}, `echo '`+initJSON+`'; exec $SELF net `+addr+` read`)
	if e := res.Reason.Evidence; res.Cause != Hung || e.Conn != addr || e.Earned != watchdog.EarnedKeepAlive || res.Reason.Silence < 4*time.Second {
		t.Errorf("the agent's own connection: outcome %v after %v, evidence %+v; want excused to max_silence", res.Cause, res.Reason.Silence, e)
	}
}

// TestWhoseRuntime: the runtime process a profile names (the agent's
// first child, started with it, by its command name) is the agent's own:
// its connections are listed with the agent's, its work is the agent's.
// Under another name, the same child is a helper: neither.
func TestWhoseRuntime(t *testing.T) {
	t.Parallel()
	if !procAvailable() {
		t.Skip("no /proc")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(self)
	name = name[:min(len(name), 15)] // what /proc/PID/comm keeps of it
	addr := pinger(t)
	p, err := start(&Options{Path: "/bin/sh", Args: []string{"-c", `$SELF net ` + addr + ` read & wait`}},
		append(agentEnv(), "SELF="+self+" "+fakeagent.Subcommand))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-p.pid, syscall.SIGKILL)
		<-p.exited
		p.closeAll()
	})
	runtime, helper := newTree(p.pid, MarkerEnv+"=runtime", name), newTree(p.pid, MarkerEnv+"=helper", "")
	defer runtime.done()
	defer helper.done()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		a := runtime.activity(time.Now())
		if len(a.Conns) == 1 && a.Conns[0].Remote == addr {
			if len(a.Procs) != 0 {
				t.Errorf("the runtime process is listed as another process: %+v", a.Procs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the runtime's connection was never listed: %+v", a)
		}
	}
	if a := helper.activity(time.Now()); len(a.Conns) != 0 || len(a.Procs) != 1 || !a.Procs[0].Under {
		t.Errorf("a helper of the agent's: %+v, want its process under the agent and no connection", a)
	}
}
