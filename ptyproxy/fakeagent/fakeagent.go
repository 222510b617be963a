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
  net ADDR HOW     talk TCP to ADDR until it closes: read (print what is not "ping"), answer (each line with "pong"), keepalive (ping every 200ms), unread (never read)
  calls N          print N tool_call started events, as fast as possible
  stty-sane        turn output processing back on for stdout, as stty sane does
  fail-if-resumed  when run with --resume: say the session is gone on stderr and exit 1
  resumed-answer   when run with --resume: print a result and exit 0
  big N            print one JSON line of N bytes
  answer N         print a cursor result whose answer is N bytes, ending in "THE END"
  repeat N TEXT    print TEXT and a newline N times, as fast as possible
  lines N SIZE     print N JSON lines of SIZE bytes each, as fast as possible
  mixed N SIZE     as lines, each line followed by one on stderr that counts them
  tick N EVERY     print N small JSON lines, one every EVERY, each stamped with its send time
  burn DURATION    use a quarter of a core without printing
  read DURATION    read /dev/zero without printing
  group-child      start a child in the same process group that sleeps forever
  setsid-child     start a child in its own session that ignores SIGTERM and SIGHUP
  tool-child       the same, unannounced on stdout: a tool the agent runs
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
	case "big", "answer":
		if err := need(1); err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return 0, err
		}
		if args[0] == "answer" {
			a.answer(n)
		} else {
			a.big(n)
		}
		return 2, nil
	case "repeat":
		if err := need(2); err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return 0, err
		}
		for range n {
			a.out.WriteString(args[2])
			a.out.WriteByte('\n')
		}
		a.out.Flush()
		return 3, nil
	case "lines", "mixed", "tick":
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
			return 0, fmt.Errorf("%s: size %q: want a number ≥ 40", args[0], args[2])
		}
		a.lines(n, size, args[0] == "mixed")
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
	case "net":
		if err := need(2); err != nil {
			return 0, err
		}
		return 3, a.talk(args[1], args[2])
	case "group-child", "setsid-child", "tool-child", "hold-pty", "chatty-child", "setsid-noenv":
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
