package sessionlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/stream"
)

// The session log's stages of the wrapper's hot path: record (an event
// record per line), redact (each batch of records), write (the queue and
// the writer goroutine). The inputs are stream's benchmark inputs (see
// stream/bench_test.go): lines1KiB is scripts/bench.sh's throughput case,
// one 64 KiB read of the fake agent's 1 KiB lines; transcript is cursor's
// own events; toolResult a 222 KB tool result full of escapes. Bytes per
// op are the agent's bytes, so MB/s compare from stage to stage.

type benchInput struct {
	name   string
	events []Event // as the session loop fills them
	bytes  int64   // the agent's bytes, newlines included
}

func benchInputs(b *testing.B) []benchInput {
	b.Helper()
	read := func(names ...string) []byte {
		var out []byte
		for _, n := range names {
			data, err := os.ReadFile(filepath.Join("..", "..", "stream", "testdata", n+".jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, data...)
		}
		return out
	}
	head := `{"type":"thinking","subtype":"delta","text":"`
	line := head + strings.Repeat("x", 1024-len(head)-3) + "\"}\n" // the fake agent's "lines N 1024"
	var inputs []benchInput
	for _, in := range []struct {
		name string
		data []byte
	}{
		{"lines1KiB", []byte(strings.Repeat(line, 64))},
		{"transcript", read("normal", "long-shell", "newline-callid")},
		{"toolResult", read("noisy")},
	} {
		bi := benchInput{name: in.name, bytes: int64(len(in.data))}
		for l := range bytes.Lines(in.data) {
			l = bytes.TrimSuffix(l, []byte("\n"))
			ev := stream.Parse(stream.Line{Text: l, Len: int64(len(l)), Newline: true})
			bi.events = append(bi.events, Event{
				Time: eventT, RecvTS: eventT.UnixMilli(), AgentTS: ev.AgentTS,
				Type: ev.Type, Subtype: ev.Subtype, CallID: ev.CallID, Raw: l,
				ParseError: ev.NotJSON, Len: int64(len(l)),
			})
		}
		inputs = append(inputs, bi)
	}
	return inputs
}

// records returns the input's event records, one batch as the loop writes
// it.
func (in benchInput) records() []byte {
	var b []byte
	for _, e := range in.events {
		b = AppendEvent(b, e)
	}
	return b
}

// BenchmarkRecord writes the event records of an input; "slog" is what
// slog's JSON handler would cost.
func BenchmarkRecord(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			var buf []byte
			b.SetBytes(in.bytes)
			b.ReportAllocs()
			for b.Loop() {
				buf = buf[:0]
				for _, e := range in.events {
					buf = AppendEvent(buf, e)
				}
			}
			b.ReportMetric(float64(len(buf))/float64(in.bytes), "logB/B")
		})
		b.Run(in.name+"/slog", func(b *testing.B) {
			b.SetBytes(in.bytes)
			b.ReportAllocs()
			for b.Loop() {
				for _, e := range in.events {
					viaSlog(e)
				}
			}
		})
	}
}

// BenchmarkRedact redacts an input's records, as the session log's writer
// gets them: one batch per write.
func BenchmarkRedact(b *testing.B) {
	r := redact.New([]string{"--api-key", "key_live_0123456789"}, []string{"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrst"})
	for _, in := range benchInputs(b) {
		recs := in.records()
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(in.bytes)
			b.ReportAllocs()
			for b.Loop() {
				r.Mask(recs)
			}
		})
	}
}

// BenchmarkWrite queues an input's records, one batch per write, and
// counts the writer goroutine's time to get them into the file (Close
// waits for it).
func BenchmarkWrite(b *testing.B) {
	for _, in := range benchInputs(b) {
		recs := masked(in.records())
		b.Run(in.name, func(b *testing.B) {
			f := Open(b.TempDir(), eventT, func(err error) { b.Error(err) })
			b.SetBytes(in.bytes)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				f.Write(recs)
			}
			f.Close()
		})
	}
}
