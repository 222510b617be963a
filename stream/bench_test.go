package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The stream's stages of the wrapper's hot path (read → forward → split →
// parse → record → redact → write), on the inputs the other stages'
// benchmarks use too (ptyproxy, ptyproxy/sessionlog):
//
//	lines1KiB   scripts/bench.sh's throughput case: the fake agent's 1 KiB
//	            lines, 64 of them, one coalesced read's worth
//	transcript  cursor's events as it prints them (testdata: normal,
//	            long-shell, newline-callid), mostly short
//	toolResult  testdata/noisy.jsonl: a 222 KB tool result full of escapes
//
// Each sets bytes per op to the agent's bytes it handles, so MB/s compare
// from stage to stage. CI runs them once (-benchtime=1x) so none rots;
// compare two commits with benchstat on -count=10 runs.

// benchLine is one line of the fake agent's "lines N 1024" step, newline
// included.
func benchLine(size int) []byte {
	head := `{"type":"thinking","subtype":"delta","text":"`
	return []byte(head + strings.Repeat("x", size-len(head)-3) + "\"}\n")
}

type benchInput struct {
	name string
	data []byte // whole lines, each ending in '\n'
}

func benchInputs(b *testing.B) []benchInput {
	b.Helper()
	read := func(names ...string) []byte {
		var out []byte
		for _, n := range names {
			data, err := os.ReadFile(filepath.Join("testdata", n+".jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, data...)
		}
		return out
	}
	return []benchInput{
		{"lines1KiB", bytes.Repeat(benchLine(1024), 64)},
		{"transcript", read("normal", "long-shell", "newline-callid")},
		{"toolResult", read("noisy")},
	}
}

// BenchmarkSplit cuts lines out of 64 KiB reads.
func BenchmarkSplit(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			lines := 0
			s := NewSplitter(DefaultKeep, func(Line) { lines++ })
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				for p := in.data; len(p) > 0; {
					n := min(len(p), 64<<10)
					s.Write(p[:n])
					p = p[n:]
				}
			}
			if lines == 0 {
				b.Fatal("no lines")
			}
		})
	}
}

// BenchmarkParse reads the envelope of every line of an input, and of
// single lines of each kind.
func BenchmarkParse(b *testing.B) {
	one := func(s string) []byte { return []byte(s + "\n") }
	inputs := append(benchInputs(b),
		benchInput{"thinking", one(`{"type":"thinking","subtype":"delta","text":" integration","session_id":"b7a93e10-2c4d-4e8f-a1b6-0d9c3f5e7a21","timestamp_ms":1789996802223}`)},
		benchInput{"started", one(`{"type":"tool_call","subtype":"started","call_id":"call-7b2e9c14-0\nfc_5a1c9e3d_0","tool_call":{"shellToolCall":{"args":{"command":"go test ./...","workingDirectory":"","timeout":30000,"toolCallId":"call-7b2e9c14-0\nfc_5a1c9e3d_0"}}},"model_call_id":"m","session_id":"s","timestamp_ms":1}`)},
		benchInput{"result1MiB", one(`{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"result":{"success":{"content":"` + strings.Repeat(`ab\"cd\\n`, 1<<17) + `"}}}},"session_id":"s","timestamp_ms":2}`)},
	)
	for _, in := range inputs {
		var lines []Line
		for l := range bytes.Lines(in.data) {
			l = bytes.TrimSuffix(l, []byte("\n"))
			lines = append(lines, Line{Text: l, Len: int64(len(l)), Newline: true})
		}
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range lines {
					Parse(l)
				}
			}
		})
	}
}
