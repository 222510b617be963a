// Package fakeagent is a stand-in for a headless agent CLI: it runs a
// script of steps (print lines, replay a transcript with its timing,
// hang, ignore SIGTERM, spawn escaping grandchildren, burn CPU, exit) so
// the wrapper can be tested and demonstrated without the real thing.
//
// Tests re-execute their own binary with Subcommand as its first argument
// and call Main, like os/exec's helper process; the wrapper's demo
// re-executes the wrapper the same way; scripts/fakeagent is the same as a
// standalone program. Only an explicit first argument selects it: nothing
// in the environment turns a binary into the fake agent.
package fakeagent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// Subcommand, as the first argument of a binary that links this package,
// makes it the fake agent: the demo and the tests pass it, nobody else.
const Subcommand = "__fakeagent"

// Is reports whether a command line (without the program name) asks for
// the fake agent.
func Is(args []string) bool { return len(args) > 0 && args[0] == Subcommand }

// StepsEnv, when set to a JSON array of strings, holds the steps, and the
// command line is left to be the agent's own (see the args step).
const StepsEnv = "FAKEAGENT_STEPS"

// Usage lists the steps Main understands.
const Usage = `fakeagent [cursor-agent flags] STEP...   (or the steps in $FAKEAGENT_STEPS)
  args             print {"type":"args","argv":[…]}: the command line as received
  line TEXT        print TEXT and a newline
  raw TEXT         print TEXT without a newline
  err TEXT         print TEXT and a newline on stderr
  replay FILE [X]  print FILE's lines, sleeping as their timestamp_ms say, X times faster
  sleep DURATION   sleep
  hang             sleep forever
  hang-once FILE   create FILE and sleep forever, unless FILE exists (a run that hangs, then a rerun that does not)
  ignore-term      ignore SIGTERM from now on
  buffered         block-buffer stdout when it is not a terminal, as C stdio does
  stdin            read stdin to EOF and print {"type":"stdin","bytes":N,"sha256":…}
  tty              print {"type":"tty",…}: what stdout, stdin and stderr are
  cwd              print {"type":"cwd","dir":…}: the working directory
  errflood N       write N bytes of lines to stderr
  calls N          print N tool_call started events, as fast as possible
  stty-sane        turn output processing back on for stdout, as stty sane does
  fail-if-resumed  when run with --resume: say the session is gone on stderr and exit 1
  resumed-answer   when run with --resume: print a result and exit 0
  big N            print one JSON line of N bytes
  lines N SIZE     print N JSON lines of SIZE bytes each, as fast as possible
  tick N EVERY     print N small JSON lines, one every EVERY, each stamped with its send time
  burn DURATION    use a quarter of a core without printing
  read DURATION    read /dev/zero without printing
  group-child      start a child in the same process group that sleeps forever
  setsid-child     start a child in its own session that ignores SIGTERM and SIGHUP
  hold-pty         start a setsid child that keeps stdout open and sleeps
  chatty-child     start a setsid child that writes a line to stdout every 50ms, forever
  setsid-noenv     start a setsid child with an empty environment (env -i setsid daemon)
  exit N           exit with status N
  kill SIGNAL      kill itself with a signal the Go runtime lets through (TERM, INT, HUP, KILL)`

// Main runs the steps and returns the exit status. args is the command
// line without the program name, Subcommand first or not; cursor-agent's
// own flags in it (the ones the wrapper adds) are skipped, unless the steps
// come from StepsEnv.
func Main(args []string) int {
	if Is(args) {
		args = args[1:]
	}
	a := &agent{out: bufio.NewWriterSize(os.Stdout, 64<<10), flush: true, argv: args}
	if env := os.Getenv(StepsEnv); env != "" {
		args = nil
		if err := json.Unmarshal([]byte(env), &args); err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent: $"+StepsEnv+":", err)
			return 2
		}
	} else {
		args = skipAgentFlags(args)
	}
	defer a.out.Flush()
	for len(args) > 0 {
		n, err := a.step(args)
		if err != nil {
			a.out.Flush()
			fmt.Fprintln(os.Stderr, "fakeagent:", err)
			return 2
		}
		if a.exit >= 0 {
			a.out.Flush()
			return a.exit
		}
		args = args[n:]
	}
	return 0
}

type agent struct {
	out   *bufio.Writer
	flush bool // flush after each line, as a terminal's line buffering does
	exit  int
	argv  []string
}

// resumed reports whether the command line resumes a session.
func (a *agent) resumed() bool {
	return slices.ContainsFunc(a.argv, func(s string) bool { return s == "--resume" || strings.HasPrefix(s, "--resume=") })
}

// skipAgentFlags drops the cursor-agent flags a wrapper adds, so the rest
// of the command line can be steps.
func skipAgentFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-p", "--print", "-f", "--force", "--":
		case "--output-format", "--model", "-m", "--workspace", "--resume", "--api-key", "--mode", "--sandbox":
			i++
		default:
			if strings.HasPrefix(args[i], "--output-format=") || strings.HasPrefix(args[i], "--resume=") {
				continue
			}
			out = append(out, args[i])
		}
	}
	return out
}

func (a *agent) println(s string) {
	a.out.WriteString(s)
	a.out.WriteByte('\n')
	if a.flush {
		a.out.Flush()
	}
}

// step runs the step at the head of args and returns how many args it used.
func (a *agent) step(args []string) (int, error) {
	a.exit = -1
	need := func(n int) error {
		if len(args) <= n {
			return fmt.Errorf("%s needs %d argument(s)", args[0], n)
		}
		return nil
	}
	dur := func() (time.Duration, error) {
		if err := need(1); err != nil {
			return 0, err
		}
		return time.ParseDuration(args[1])
	}
	switch args[0] {
	case "args":
		a.printJSON(map[string]any{"type": "args", "argv": a.argv})
		return 1, nil
	case "line":
		if err := need(1); err != nil {
			return 0, err
		}
		a.println(args[1])
		return 2, nil
	case "raw":
		if err := need(1); err != nil {
			return 0, err
		}
		a.out.WriteString(args[1])
		a.out.Flush()
		return 2, nil
	case "err":
		if err := need(1); err != nil {
			return 0, err
		}
		fmt.Fprintln(os.Stderr, args[1])
		return 2, nil
	case "replay":
		if err := need(1); err != nil {
			return 0, err
		}
		speed, used := 1.0, 2
		if len(args) > 2 {
			if f, err := strconv.ParseFloat(args[2], 64); err == nil && f > 0 {
				speed, used = f, 3
			}
		}
		return used, a.replay(args[1], speed)
	case "sleep":
		d, err := dur()
		if err != nil {
			return 0, err
		}
		a.out.Flush()
		time.Sleep(d)
		return 2, nil
	case "hang":
		a.out.Flush()
		sleepForever()
	case "hang-once":
		if err := need(1); err != nil {
			return 0, err
		}
		if _, err := os.Stat(args[1]); err == nil {
			return 2, nil
		}
		if err := os.WriteFile(args[1], nil, 0o600); err != nil {
			return 0, err
		}
		a.out.Flush()
		sleepForever()
		return 0, nil
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		return 1, nil
	case "buffered":
		a.flush = term.IsTerminal(1)
		return 1, nil
	case "stdin":
		// Streamed through the hash, not held: a test of the wrapper's
		// memory measures the agent's too.
		h := sha256.New()
		n, err := io.Copy(h, os.Stdin)
		if err != nil {
			return 0, err
		}
		a.printJSON(map[string]any{"type": "stdin", "bytes": n, "sha256": hex.EncodeToString(h.Sum(nil))})
		return 1, nil
	case "tty":
		a.printJSON(ttyReport())
		return 1, nil
	case "cwd":
		dir, err := os.Getwd()
		if err != nil {
			return 0, err
		}
		a.printJSON(map[string]any{"type": "cwd", "dir": dir})
		return 1, nil
	case "big":
		if err := need(1); err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return 0, err
		}
		a.big(n)
		return 2, nil
	case "lines", "tick":
		if err := need(2); err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return 0, err
		}
		if args[0] == "tick" {
			every, err := time.ParseDuration(args[2])
			if err != nil {
				return 0, err
			}
			a.tick(n, every)
			return 3, nil
		}
		size, err := strconv.Atoi(args[2])
		if err != nil || size < 40 {
			return 0, fmt.Errorf("lines: size %q: want a number ≥ 40", args[2])
		}
		a.lines(n, size)
		return 3, nil
	case "errflood", "calls":
		if err := need(1); err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return 0, err
		}
		if args[0] == "calls" {
			for i := range n {
				fmt.Fprintf(a.out, `{"type":"tool_call","subtype":"started","call_id":"c%d","tool_call":{"readToolCall":{"args":{"path":"f%d"}}}}`+"\n", i, i)
			}
			a.out.Flush()
			return 2, nil
		}
		line := append(bytes.Repeat([]byte("e"), 99), '\n')
		for left := n; left > 0; left -= len(line) {
			os.Stderr.Write(line)
		}
		return 2, nil
	case "fail-if-resumed", "resumed-answer":
		if !a.resumed() {
			return 1, nil
		}
		if args[0] == "fail-if-resumed" {
			fmt.Fprintln(os.Stderr, "Error: no chat with that id")
			a.exit = 1
			return 1, nil
		}
		a.println(`{"type":"result","subtype":"success","result":"resumed"}`)
		a.exit = 0
		return 1, nil
	case "stty-sane":
		if err := sttySane(1); err != nil {
			return 0, err
		}
		return 1, nil
	case "burn":
		d, err := dur()
		if err != nil {
			return 0, err
		}
		a.out.Flush()
		// A quarter of a core is far above the activity floor and leaves
		// a loaded 2-core test machine time to run the wrapper's timers.
		for end := time.Now().Add(d); time.Now().Before(end); {
			for spin := time.Now().Add(5 * time.Millisecond); time.Now().Before(spin); {
			}
			time.Sleep(15 * time.Millisecond)
		}
		return 2, nil
	case "read":
		d, err := dur()
		if err != nil {
			return 0, err
		}
		a.out.Flush()
		f, err := os.Open("/dev/zero")
		if err != nil {
			return 0, err
		}
		defer f.Close()
		buf := make([]byte, 64<<10)
		for end := time.Now().Add(d); time.Now().Before(end); {
			f.Read(buf)
			time.Sleep(time.Millisecond)
		}
		return 2, nil
	case "group-child", "setsid-child", "hold-pty", "chatty-child", "setsid-noenv":
		return 1, a.child(args[0])
	case "exit":
		if err := need(1); err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return 0, err
		}
		a.exit = n
		return 2, nil
	case "kill":
		if err := need(1); err != nil {
			return 0, err
		}
		sig := unix.SignalNum("SIG" + strings.TrimPrefix(args[1], "SIG"))
		if sig == 0 {
			return 0, fmt.Errorf("unknown signal %s", args[1])
		}
		a.out.Flush()
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second)
		return 0, fmt.Errorf("signal %s did not kill", args[1])
	case "sleeper":
		// Internal: the body of the children started above.
		if len(args) > 1 && args[1] == "ignore" {
			signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		}
		if len(args) > 1 && args[1] == "chatty" {
			for range time.Tick(50 * time.Millisecond) {
				fmt.Println(`{"type":"tick"}`)
			}
		}
		sleepForever()
	}
	return 0, fmt.Errorf("unknown step %q\n%s", args[0], Usage)
}

// sleepForever blocks without looking deadlocked to the Go runtime.
func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

func (a *agent) printJSON(v any) {
	b, _ := json.Marshal(v)
	a.println(string(b))
}

// big prints a JSON line of exactly n bytes (n ≥ 32) without holding it.
func (a *agent) big(n int) {
	head := `{"type":"big","data":"`
	tail := `"}`
	a.out.WriteString(head)
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for left := n - len(head) - len(tail); left > 0; {
		k := min(left, len(chunk))
		a.out.Write(chunk[:k])
		left -= k
	}
	a.out.WriteString(tail)
	a.out.WriteByte('\n')
	a.out.Flush()
}

// lines prints n JSON lines of size bytes each, newline included.
func (a *agent) lines(n, size int) {
	head := []byte(`{"type":"thinking","subtype":"delta","text":"`)
	line := append(head, bytes.Repeat([]byte("x"), size-len(head)-3)...)
	line = append(line, '"', '}', '\n')
	for range n {
		a.out.Write(line)
	}
	a.out.Flush()
}

// tick prints n small lines, every apart, each carrying its send time in
// Unix nanoseconds, so a reader can measure how late each arrived.
func (a *agent) tick(n int, every time.Duration) {
	next := time.Now()
	for i := range n {
		time.Sleep(time.Until(next))
		next = next.Add(every)
		fmt.Fprintf(a.out, `{"type":"thinking","subtype":"delta","seq":%d,"sent_ns":%d}`+"\n", i, time.Now().UnixNano())
		a.out.Flush()
	}
}

// replay prints a transcript's lines, sleeping between lines as their
// timestamp_ms fields are apart, divided by speed.
func (a *agent) replay(path string, speed float64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var prev int64
	for line := range bytes.Lines(data) {
		var env struct {
			TS int64 `json:"timestamp_ms"`
		}
		// Huge lines are tool results: not worth decoding for a timestamp.
		if len(line) < 1<<16 && json.Unmarshal(line, &env) == nil && env.TS > 0 {
			if prev > 0 && env.TS > prev {
				a.out.Flush()
				time.Sleep(time.Duration(float64(env.TS-prev) * float64(time.Millisecond) / speed))
			}
			prev = env.TS
		}
		a.out.Write(line)
		if a.flush {
			a.out.Flush()
		}
	}
	return nil
}

// child starts a descendant the way real agents start their tools.
func (a *agent) child(kind string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, Subcommand, "sleeper")
	// The child's one step is its argument: steps in the environment would
	// make it run the whole script again, and start children of its own.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, StepsEnv+"=") })
	switch kind {
	case "setsid-child":
		cmd.Args = append(cmd.Args, "ignore")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	case "hold-pty":
		cmd.Stdout = os.Stdout
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	case "setsid-noenv":
		cmd.Env = []string{}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	case "chatty-child":
		cmd.Args = append(cmd.Args, "chatty")
		cmd.Stdout = os.Stdout
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	a.printJSON(map[string]any{"type": "child", "kind": kind, "pid": cmd.Process.Pid})
	return nil
}

// ttyReport says what the agent's standard streams are.
func ttyReport() map[string]any {
	r := map[string]any{
		"type":   "tty",
		"stdin":  term.IsTerminal(0),
		"stdout": term.IsTerminal(1),
		"stderr": term.IsTerminal(2),
	}
	if ws, err := unix.IoctlGetWinsize(1, unix.TIOCGWINSZ); err == nil {
		r["rows"], r["cols"] = ws.Row, ws.Col
	}
	if t, err := unix.IoctlGetTermios(1, getTermios); err == nil {
		r["opost"] = t.Oflag&unix.OPOST != 0
		r["onlcr"] = t.Oflag&unix.ONLCR != 0
		r["echo"] = t.Lflag&unix.ECHO != 0
	}
	if ign, ok := sigIgnored(); ok {
		r["sig_ign"] = ign
	}
	pgid, _ := unix.Getpgid(0)
	sid, _ := unix.Getsid(0)
	r["pid"], r["pgid"], r["sid"] = os.Getpid(), pgid, sid
	return r
}

// sttySane turns output processing back on, with "\n" written as "\r\n",
// as `stty sane` does.
func sttySane(fd int) error {
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return err
	}
	t.Oflag |= unix.OPOST | unix.ONLCR
	return unix.IoctlSetTermios(fd, setTermios, t)
}
