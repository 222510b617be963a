package stream

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// loopsDeadline bounds checkLoopsEnd. Its work takes some 50 ms, under a
// second with -race on a loaded 2-core machine.
const loopsDeadline = 15 * time.Second

// TestMain first checks that the package's scanning loops end on every
// input its tests hold. A loop whose index steps back never ends, and
// every test that reaches it hangs until go test's own timeout, ten
// minutes by default; gremlins gives each mutant's tests ten times the
// package's run before it calls the mutant timed out, and leaves its test
// binary spinning (docs/mutation.md). Checked first, with a deadline of
// its own, such a loop fails the package in seconds, saying which input.
func TestMain(m *testing.M) {
	if err := checkLoopsEnd(loopsDeadline); err != nil {
		fmt.Fprintln(os.Stderr, "stream:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// checkLoopsEnd runs every line of testdata through what the wrapper runs
// on an agent's output (Splitter, Joiner, each profile's parser, Reply,
// Tally and the stderr patterns), and argument lists through the command
// line readers, and fails if that takes longer than deadline.
func checkLoopsEnd(deadline time.Duration) error {
	var inputs []string
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".stderr") {
			inputs = append(inputs, path)
		}
		return nil
	})
	if err != nil || len(inputs) == 0 {
		return fmt.Errorf("no inputs in testdata: %v", err)
	}
	var at atomic.Value // the input being read
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, path := range inputs {
			at.Store(path)
			data, err := os.ReadFile(path)
			if err != nil {
				panic(err)
			}
			p := Cursor
			if named, err := ProfileNamed(strings.Split(filepath.Base(path), "-")[0]); err == nil {
				p = named
			}
			runOutput(p, DefaultKeep, data)
			// Cut short, lines end inside their strings and escapes; with
			// literal newlines, the Joiner holds them. The first 32 KiB
			// have every kind of line (noisy.jsonl's 222 KB result would
			// make this the package's slowest test under -race).
			runOutput(p, 100, literalNewlines(data[:min(len(data), 32<<10)]))
		}
		at.Store("argument lists")
		for _, p := range profiles {
			for _, args := range [][]string{
				{"-p", "--model", "m", "--output-format", "stream-json", "hi"},
				{"exec", "--json", "-m=x", "--", "-hi"},
				{"--prompt", "hi", "-o", "stream-json", "--allowedTools", "a", "b"},
				{"run", "--session", "S", "--format", "json", "hi"},
			} {
				p.ModeOf(args)
				p.Headless(args, Direct{Model: "m", Workspace: "/w", Force: true})
				p.Resume(args, "S", "go on")
				p.WithModel(args, "m2")
				p.Resumes(args)
			}
		}
	}()
	select {
	case <-done:
		return nil
	case <-time.After(deadline):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		return fmt.Errorf("reading %s did not end within %v: a loop that never ends?\n%s", at.Load(), deadline, buf)
	}
}

// runOutput reads an agent's output as the wrapper does.
func runOutput(p *Profile, keep int, data []byte) {
	var reply Reply
	var tally Tally
	j := NewJoiner(keep, p.Parse, func(l Line, ev Event) {
		reply.Add(ev)
		tally.Add(ev)
		p.Stderr(l.Text)
	})
	s := NewSplitter(keep, j.Add)
	s.Write(data)
	s.Flush()
	j.Flush()
	_ = reply.String()
}
