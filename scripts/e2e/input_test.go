package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// inputRecord is an input record of a session log: a decision of the
// wrapper's that changed what the agent received.
type inputRecord struct {
	Msg, Change, Message string
	Added, Removed       []string
	Bytes                int64
}

// inputs returns the input records of each log of dir, by the attempt
// whose log holds them (1 for the first).
func inputs(t *testing.T, dir string) map[int][]inputRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "cursor-wrap-*.jsonl"))
	slices.Sort(files) // By their start: the attempts in order.
	out := map[int][]inputRecord{}
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(data) {
			var r inputRecord
			if json.Unmarshal(line, &r) == nil && r.Msg == "input" {
				out[i+1] = append(out[i+1], r)
			}
		}
	}
	return out
}

// changed returns the record of change among recs, if any.
func changed(recs []inputRecord, change string) (inputRecord, bool) {
	for _, r := range recs {
		if r.Change == change {
			return r, true
		}
	}
	return inputRecord{}, false
}

// TestInputRecorded (33.9): every decision that changes what the agent
// receives is a record in the session log, whatever the console's level.
// A pipe that delivered its context after the stdin wait was closed to
// the agent without a trace (and, with --log-level error, without a
// word): now the close is recorded, and the bytes that came later too.
// Each attempt records the arguments and variables the wrapper added; a
// resumed one, the restart prompt in place of the user's and the stdin it
// does not get; a rerun, the stdin replayed, or the stdin it could not
// have.
func TestInputRecorded(t *testing.T) {
	t.Parallel()
	t.Run("context piped late", func(t *testing.T) {
		t.Parallel()
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		defer pw.Close()
		// The context comes once the agent has seen its stdin end: late.
		const closed = `{"type":"stdin_was_closed"}`
		r := wrapperRun(t, func(cmd *exec.Cmd) {
			cmd.Stdin = pr
			cmd.Stdout = &onLine{w: cmd.Stdout, line: closed, do: func() {
				pw.WriteString("piped context\n")
				pw.Close()
			}}
			cmd.Env = append(cmd.Env, steps("stdin", "line", closed, "sleep", "1s", "line", resultLine))
		}, "--log-level", "error", "--stdin-wait", "300ms", "--", "fix it")
		recs := inputs(t, r.logDir)[1]
		closedRec, ok1 := changed(recs, "stdin_closed")
		late, ok2 := changed(recs, "stdin_late")
		if r.code != 0 || !bytes.Contains(r.stdout, []byte(`"bytes":0,`)) || !ok1 || !ok2 || late.Bytes != int64(len("piped context\n")) {
			t.Errorf("exit %d, stdout %s; records %+v", r.code, r.stdout, recs)
		}
		if len(r.stderr) != 0 || closedRec.Message == "" {
			t.Errorf("stderr %q (--log-level error), closed %+v", r.stderr, closedRec)
		}
		args, ok1 := changed(recs, "arguments")
		env, ok2 := changed(recs, "environment")
		if !ok1 || !slices.Contains(args.Added, "--output-format") || !ok2 || !slices.Contains(env.Added, "CURSOR_WRAP_DEPTH") {
			t.Errorf("what the wrapper added: %+v, %+v", args, env)
		}
	})
	t.Run("a resumed session", func(t *testing.T) {
		t.Parallel()
		marker := filepath.Join(t.TempDir(), "hung-once")
		r := runWrapper(t, []string{steps("stdin", "line", initLine, "hang-once", marker, "line", resultLine)}, []byte("context\n"),
			"--idle-timeout", "2s", "--restarts", "1", "--restart-prompt", "go on", "--", "the prompt")
		second := inputs(t, r.logDir)[2]
		args, _ := changed(second, "arguments")
		prompt, ok1 := changed(second, "prompt")
		_, ok2 := changed(second, "stdin_not_given")
		if r.code != 0 || !slices.Contains(args.Added, "--resume") || !slices.Equal(args.Removed, []string{"the prompt"}) ||
			!ok1 || !bytes.Contains([]byte(prompt.Message), []byte(`"go on"`)) || !ok2 {
			t.Errorf("exit %d; the second attempt's records %+v", r.code, second)
		}
	})
	t.Run("a rerun", func(t *testing.T) {
		t.Parallel()
		marker := filepath.Join(t.TempDir(), "hung-once")
		r := runWrapper(t, []string{steps("stdin", "hang-once", marker, "line", resultLine)}, []byte("say hi\n"),
			"--idle-timeout", "2s", "--restarts", "1")
		replayed, ok := changed(inputs(t, r.logDir)[2], "stdin_replayed")
		if r.code != 0 || !ok || replayed.Bytes != 7 {
			t.Errorf("exit %d; replayed %+v", r.code, replayed)
		}
	})
	t.Run("a rerun without its stdin", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, []string{steps("stdin", "hang")}, bytes.Repeat([]byte("x"), 9<<20),
			"--idle-timeout", "2s", "--restarts", "1")
		recs := inputs(t, r.logDir)
		lost, ok := changed(recs[1], "stdin_not_replayed")
		if r.code != 124 || len(recs) != 1 || !ok || lost.Bytes != 9<<20 {
			t.Errorf("exit %d; records %+v", r.code, recs)
		}
	})
}

// onLine passes what is written to w, and calls do once a write has
// completed line.
type onLine struct {
	w    io.Writer
	line string
	do   func()
	seen []byte
	done bool
}

func (o *onLine) Write(b []byte) (int, error) {
	if !o.done {
		if o.seen = append(o.seen, b...); bytes.Contains(o.seen, []byte(o.line+"\n")) {
			o.done = true
			o.do()
		}
	}
	return o.w.Write(b)
}
