package fakeagent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// A step is one thing the fake agent does, named by the first word of
// it on the command line: a small function in a table, as os/exec's tests
// register their helper commands. Adding one is a line in table.
type step struct {
	name string
	// args names its arguments for the usage; each one not in brackets is
	// required.
	args string
	does string // what it does, for the usage; "" keeps it out of the usage
	// more, if set, says how many optional arguments it takes from those
	// after its required ones.
	more func(rest []string) int
	// run does it with its arguments, the optional ones it took included.
	run func(a *agent, args []string) error
}

// argc is the number of arguments the step requires.
func (s step) argc() int {
	n := 0
	for _, f := range strings.Fields(s.args) {
		if !strings.HasPrefix(f, "[") {
			n++
		}
	}
	return n
}

var table = []step{
	{name: "args", does: `print {"type":"args","argv":[…]}: the command line as received`, run: stepArgs},
	{name: "line", args: "TEXT", does: "print TEXT and a newline", run: func(a *agent, args []string) error { a.println(args[0]); return nil }},
	{name: "raw", args: "TEXT", does: "print TEXT without a newline", run: stepRaw},
	{name: "err", args: "TEXT", does: "print TEXT and a newline on stderr", run: stepErr},
	{name: "err-raw", args: "TEXT", does: "print TEXT without a newline on stderr", run: func(_ *agent, args []string) error { _, err := os.Stderr.WriteString(args[0]); return err }},
	{name: "replay", args: "FILE [X]", does: "print FILE's lines, sleeping as their timestamp_ms say, X times faster", more: speedGiven, run: stepReplay},
	{name: "sleep", args: "DURATION", does: "sleep", run: stepSleep},
	{name: "hang", does: "sleep forever", run: stepHang},
	{name: "hang-once", args: "FILE", does: "create FILE and sleep forever, unless FILE exists (a run that hangs, then a rerun that does not)", run: stepHangOnce},
	{name: "ignore-term", does: "ignore SIGTERM from now on", run: func(*agent, []string) error { signal.Ignore(syscall.SIGTERM); return nil }},
	{name: "buffered", does: "block-buffer stdout when it is not a terminal, as C stdio does", run: func(a *agent, _ []string) error { a.flush = term.IsTerminal(1); return nil }},
	{name: "stdin", does: `read stdin to EOF and print {"type":"stdin","bytes":N,"sha256":…}`, run: stepStdin},
	{name: "wait-tty", does: "wait to read its terminal (/dev/tty) in the Go runtime's epoll set, as an event loop does", run: stepWaitTTY},
	{name: "wait-stdin", does: "wait to read stdin in a blocking read(2)", run: stepWaitStdin},
	{name: "tty", does: `print {"type":"tty",…}: what stdout, stdin and stderr are`, run: func(a *agent, _ []string) error { a.printJSON(ttyReport()); return nil }},
	{name: "cwd", does: `print {"type":"cwd","dir":…}: the working directory`, run: stepCwd},
	{name: "errflood", args: "N", does: "write N bytes of lines to stderr", run: stepErrflood},
	{name: "net", args: "ADDR HOW", does: `talk TCP to ADDR until it closes: read (print what is not "ping"), answer (each line with "pong"), keepalive (ping every 200ms), unread (never read)`,
		run: func(a *agent, args []string) error { return a.talk(args[0], args[1]) }},
	{name: "calls", args: "N", does: "print N tool_call started events, as fast as possible", run: stepCalls},
	{name: "stty-sane", does: "turn output processing back on for stdout, as stty sane does", run: func(*agent, []string) error { return sttySane(1) }},
	{name: "fail-if-resumed", does: "when run with --resume: say the session is gone on stderr and exit 1", run: stepFailIfResumed},
	{name: "resumed-answer", does: "when run with --resume: print a result and exit 0", run: stepResumedAnswer},
	{name: "big", args: "N", does: "print one JSON line of N bytes", run: count((*agent).big)},
	{name: "answer", args: "N", does: `print a cursor result whose answer is N bytes, ending in "THE END"`, run: count((*agent).answer)},
	{name: "repeat", args: "N TEXT", does: "print TEXT and a newline N times, as fast as possible", run: stepRepeat},
	{name: "lines", args: "N SIZE", does: "print N JSON lines of SIZE bytes each, as fast as possible", run: linesStep("lines", false)},
	{name: "mixed", args: "N SIZE", does: "as lines, each line followed by one on stderr that counts them", run: linesStep("mixed", true)},
	{name: "tick", args: "N EVERY", does: "print N small JSON lines, one every EVERY, each stamped with its send time", run: stepTick},
	{name: "burn", args: "DURATION", does: "use a quarter of a core without printing", run: stepBurn},
	{name: "read", args: "DURATION", does: "read /dev/zero without printing: a tool reading files", run: stepRead},
	{name: "group-child", does: "start a child in the same process group that sleeps forever", run: child("group-child")},
	{name: "setsid-child", does: "start a child in its own session that ignores SIGTERM and SIGHUP", run: child("setsid-child")},
	{name: "tool-child", does: "the same, unannounced on stdout: a tool the agent runs", run: child("tool-child")},
	{name: "hold-pty", does: "start a setsid child that keeps stdout open and sleeps", run: child("hold-pty")},
	{name: "chatty-child", does: "start a setsid child that writes a line to stdout every 50ms, forever", run: child("chatty-child")},
	{name: "setsid-noenv", does: "start a setsid child with an empty environment (env -i setsid daemon)", run: child("setsid-noenv")},
	{name: "orphan-burner", does: "leave an orphan that burns a quarter of a core: double-forked into a session of its own, as a dev server's file watcher", run: func(a *agent, _ []string) error { return a.orphan() }},
	{name: "helper", args: "ADDR", does: "start a helper in the agent's process group, not a tool call: an MCP server that follows a feed on its own TCP connection (net ADDR read)",
		run: func(a *agent, args []string) error { return a.helper(args[0]) }},
	{name: "work", args: "DURATION", does: "run a tool in a session of its own that burns a quarter of a core for DURATION, and wait for it", run: func(a *agent, args []string) error { return a.work(args[0]) }},
	{name: "connect", args: "URL BEAT", does: "as cursor-agent: print its init, talk Connect over one h2c stream to URL (a 20 KB request, then a 16 B heartbeat every BEAT), print the answer as assistant and result when the stream ends",
		run: stepConnect},
	{name: "messages", args: "URL", does: "as Claude Code: print its init, post a streamed Messages request to URL, print the SSE answer as assistant and result",
		run: func(a *agent, args []string) error { return a.messages(args[0]) }},
	{name: "exit", args: "N", does: "exit with status N", run: stepExit},
	{name: "kill", args: "SIGNAL", does: "kill itself with a signal the Go runtime lets through (TERM, INT, HUP, KILL)", run: stepKill},
	// The body of the children started above.
	{name: "sleeper", args: "[ignore|chatty]", more: func(rest []string) int { return min(len(rest), 1) }, run: stepSleeper},
	// The middle of orphan-burner's double fork: the rest, forked away.
	{name: "fork-away", more: func(rest []string) int { return len(rest) }, run: func(_ *agent, args []string) error { return forkAway(args) }},
}

// usage lists the steps Main understands.
func usage() string {
	var b strings.Builder
	b.WriteString("fakeagent [cursor-agent flags] STEP...   (or the steps in $" + StepsEnv + ")")
	for _, s := range table {
		if s.does != "" {
			fmt.Fprintf(&b, "\n  %-16s %s", strings.TrimSpace(s.name+" "+s.args), s.does)
		}
	}
	return b.String()
}

func stepArgs(a *agent, _ []string) error {
	a.printJSON(map[string]any{"type": "args", "argv": a.argv})
	return nil
}

func stepRaw(a *agent, args []string) error {
	a.out.WriteString(args[0])
	a.out.Flush()
	return nil
}

func stepErr(_ *agent, args []string) error {
	fmt.Fprintln(os.Stderr, args[0])
	return nil
}

// speedGiven takes replay's speed when the argument after the file is one.
func speedGiven(rest []string) int {
	if len(rest) > 0 {
		if f, err := strconv.ParseFloat(rest[0], 64); err == nil && f > 0 {
			return 1
		}
	}
	return 0
}

func stepReplay(a *agent, args []string) error {
	speed := 1.0
	if len(args) > 1 {
		speed, _ = strconv.ParseFloat(args[1], 64) // speedGiven parsed it.
	}
	return a.replay(args[0], speed)
}

func stepSleep(a *agent, args []string) error {
	d, err := time.ParseDuration(args[0])
	if err != nil {
		return err
	}
	a.out.Flush()
	time.Sleep(d)
	return nil
}

func stepHang(a *agent, _ []string) error {
	a.out.Flush()
	sleepForever()
	return nil
}

func stepHangOnce(a *agent, args []string) error {
	if _, err := os.Stat(args[0]); err == nil {
		return nil
	}
	if err := os.WriteFile(args[0], nil, 0o600); err != nil {
		return err
	}
	return stepHang(a, nil)
}

func stepStdin(a *agent, _ []string) error {
	// Streamed through the hash, not held: a test of the wrapper's memory
	// measures the agent's too.
	h := sha256.New()
	n, err := io.Copy(h, os.Stdin)
	if err != nil {
		return err
	}
	a.printJSON(map[string]any{"type": "stdin", "bytes": n, "sha256": hex.EncodeToString(h.Sum(nil))})
	return nil
}

func stepCwd(a *agent, _ []string) error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	a.printJSON(map[string]any{"type": "cwd", "dir": dir})
	return nil
}

func stepErrflood(_ *agent, args []string) error {
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return err
	}
	line := append(bytes.Repeat([]byte("e"), 99), '\n')
	for left := n; left > 0; left -= len(line) {
		os.Stderr.Write(line)
	}
	return nil
}

func stepCalls(a *agent, args []string) error {
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return err
	}
	for i := range n {
		fmt.Fprintf(a.out, `{"type":"tool_call","subtype":"started","call_id":"c%d","tool_call":{"readToolCall":{"args":{"path":"f%d"}}}}`+"\n", i, i)
	}
	a.out.Flush()
	return nil
}

func stepFailIfResumed(a *agent, _ []string) error {
	if a.resumed() {
		fmt.Fprintln(os.Stderr, "Error: no chat with that id")
		a.exit = 1
	}
	return nil
}

func stepResumedAnswer(a *agent, _ []string) error {
	if a.resumed() {
		a.println(`{"type":"result","subtype":"success","result":"resumed"}`)
		a.exit = 0
	}
	return nil
}

// count makes a step of a method that prints N of something.
func count(f func(*agent, int)) func(*agent, []string) error {
	return func(a *agent, args []string) error {
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return err
		}
		f(a, n)
		return nil
	}
}

func stepRepeat(a *agent, args []string) error {
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return err
	}
	for range n {
		a.out.WriteString(args[1])
		a.out.WriteByte('\n')
	}
	a.out.Flush()
	return nil
}

func linesStep(name string, mixed bool) func(*agent, []string) error {
	return func(a *agent, args []string) error {
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return err
		}
		size, err := strconv.Atoi(args[1])
		if err != nil || size < 40 {
			return fmt.Errorf("%s: size %q: want a number ≥ 40", name, args[1])
		}
		a.lines(n, size, mixed)
		return nil
	}
}

func stepTick(a *agent, args []string) error {
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return err
	}
	every, err := time.ParseDuration(args[1])
	if err != nil {
		return err
	}
	a.tick(n, every)
	return nil
}

func stepBurn(a *agent, args []string) error {
	d, err := time.ParseDuration(args[0])
	if err != nil {
		return err
	}
	a.out.Flush()
	burn(d)
	return nil
}

// burn uses a quarter of a core for d: far above the activity floor, and
// it leaves a loaded 2-core test machine time to run the wrapper's timers.
func burn(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for spin := time.Now().Add(5 * time.Millisecond); time.Now().Before(spin); {
		}
		time.Sleep(15 * time.Millisecond)
	}
}

func stepRead(a *agent, args []string) error {
	d, err := time.ParseDuration(args[0])
	if err != nil {
		return err
	}
	a.out.Flush()
	f, err := os.Open("/dev/zero")
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for end := time.Now().Add(d); time.Now().Before(end); {
		f.Read(buf)
		time.Sleep(time.Millisecond)
	}
	return nil
}

func child(kind string) func(*agent, []string) error {
	return func(a *agent, _ []string) error { return a.child(kind) }
}

func stepConnect(a *agent, args []string) error {
	beat, err := time.ParseDuration(args[1])
	if err != nil {
		return err
	}
	return a.connect(args[0], beat)
}

func stepExit(a *agent, args []string) error {
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return err
	}
	a.exit = n
	return nil
}

func stepKill(a *agent, args []string) error {
	sig := unix.SignalNum("SIG" + strings.TrimPrefix(args[0], "SIG"))
	if sig == 0 {
		return fmt.Errorf("unknown signal %s", args[0])
	}
	a.out.Flush()
	signal.Reset(sig)
	syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Second)
	return fmt.Errorf("signal %s did not kill", args[0])
}

func stepSleeper(_ *agent, args []string) error {
	if len(args) > 0 && args[0] == "ignore" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	}
	if len(args) > 0 && args[0] == "chatty" {
		for range time.Tick(50 * time.Millisecond) {
			fmt.Println(`{"type":"tick"}`)
		}
	}
	sleepForever()
	return nil
}
