package fakeagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// The steps that take more than a line of step's switch: printing at
// volume or on a schedule, replaying a transcript, starting descendants,
// and the terminal's state.

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

// answer prints a cursor result event whose answer is n bytes of text
// ending in "THE END".
func (a *agent) answer(n int) {
	const end = "THE END"
	a.out.WriteString(`{"type":"result","subtype":"success","is_error":false,"result":"`)
	line := []byte(strings.Repeat("all is well. ", 5) + `\n`) // 67 bytes, one escaped newline
	for left := n - len(end); left > 0; {
		if left < len(line) {
			a.out.WriteString(strings.Repeat("x", left))
			break
		}
		a.out.Write(line)
		left -= len(line) - 1 // The escape is one byte of the answer.
	}
	a.out.WriteString(end + `","session_id":"s-1"}` + "\n")
	a.out.Flush()
}

// lines prints n JSON lines of size bytes each, newline included; mixed,
// each line is written by itself and followed by "stderr N" on stderr.
func (a *agent) lines(n, size int, mixed bool) {
	head := []byte(`{"type":"thinking","subtype":"delta","text":"`)
	line := append(head, bytes.Repeat([]byte("x"), size-len(head)-3)...)
	line = append(line, '"', '}', '\n')
	for i := range n {
		a.out.Write(line)
		if mixed {
			a.out.Flush()
			fmt.Fprintf(os.Stderr, "stderr %d\n", i+1)
		}
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
	cmd, err := self("sleeper")
	if err != nil {
		return err
	}
	switch kind {
	case "setsid-child", "tool-child":
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
	if kind != "tool-child" {
		a.printJSON(map[string]any{"type": "child", "kind": kind, "pid": cmd.Process.Pid})
	}
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

// self is a command that runs the fake agent's steps: the steps are its
// arguments, never those in the environment, which would make it run the
// whole script again and start children of its own.
func self(steps ...string) (*exec.Cmd, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{Subcommand}, steps...)...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, StepsEnv+"=") })
	return cmd, nil
}

// orphan leaves a process behind that burns CPU, as a dev server's file
// watcher does: double-forked, it runs in a session of its own under no
// process of the agent's. It prints the orphan's pid.
func (a *agent) orphan() error {
	cmd, err := self("fork-away", "burn", "1000h")
	if err != nil {
		return err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("orphan-burner: %w", err)
	}
	a.printJSON(map[string]any{"type": "child", "kind": "orphan-burner", "pid": json.Number(strings.TrimSpace(string(out)))})
	return nil
}

// forkAway starts steps in a child, prints its pid and returns: its caller
// then exits, and the child is an orphan.
func forkAway(steps []string) error {
	cmd, err := self(steps...)
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	fmt.Println(cmd.Process.Pid)
	return nil
}

// helper starts a process in the agent's own process group that is not
// a tool call: an MCP server started at init, which follows a feed on its
// own TCP connection to addr. It prints the helper's pid.
func (a *agent) helper(addr string) error {
	cmd, err := self("net", addr, "read")
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	a.printJSON(map[string]any{"type": "child", "kind": "helper", "pid": cmd.Process.Pid})
	return nil
}

// work runs a tool that burns CPU for d, in a session of its own as real
// agents start their tools, and waits for it; it prints nothing, as an
// agent in text mode does.
func (a *agent) work(d string) error {
	cmd, err := self("burn", d)
	if err != nil {
		return err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	a.out.Flush()
	return cmd.Run()
}
