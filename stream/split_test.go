package stream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// collect splits input fed in the given chunk sizes and returns the lines.
func collect(t testing.TB, keep int, input []byte, chunks []int) []Line {
	t.Helper()
	var got []Line
	s := NewSplitter(keep, func(l Line) {
		got = append(got, Line{Text: bytes.Clone(l.Text), Len: l.Len, Newline: l.Newline})
	})
	for len(input) > 0 {
		n := len(input)
		if len(chunks) > 0 {
			n = min(chunks[0], n)
			chunks = chunks[1:]
		}
		if w, err := s.Write(input[:n]); w != n || err != nil {
			t.Fatalf("Write = %d, %v; want %d, nil", w, err, n)
		}
		input = input[n:]
	}
	s.Flush()
	return got
}

func TestSplitterLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		input  string
		chunks []int
		want   []Line
	}{
		{"empty", "", nil, nil},
		{"one", "a\n", nil, []Line{{Text: []byte("a"), Len: 1, Newline: true}}},
		{"blank lines", "\n\n", nil, []Line{{Text: []byte{}, Len: 0, Newline: true}, {Text: []byte{}, Len: 0, Newline: true}}},
		{"cr kept", "a\r\nb\n", nil, []Line{{Text: []byte("a\r"), Len: 2, Newline: true}, {Text: []byte("b"), Len: 1, Newline: true}}},
		{"final fragment", "a\nlast", nil, []Line{{Text: []byte("a"), Len: 1, Newline: true}, {Text: []byte("last"), Len: 4}}},
		{"split across writes", "hello\nworld\n", []int{3, 4, 1}, []Line{{Text: []byte("hello"), Len: 5, Newline: true}, {Text: []byte("world"), Len: 5, Newline: true}}},
		{"truncated", "0123456789\nab\n", []int{4}, []Line{{Text: []byte("01234"), Len: 10, Newline: true}, {Text: []byte("ab"), Len: 2, Newline: true}}},
		{"truncated in one write", "0123456789\n", nil, []Line{{Text: []byte("01234"), Len: 10, Newline: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := collect(t, 5, []byte(tc.input), tc.chunks)
			if show(got) != show(tc.want) {
				t.Errorf("lines = %s\nwant    %s", show(got), show(tc.want))
			}
		})
	}
}

func show(lines []Line) string {
	var b bytes.Buffer
	for _, l := range lines {
		fmt.Fprintf(&b, "{%q %d %v}", l.Text, l.Len, l.Newline)
	}
	return b.String()
}

// TestSplitterHugeLine feeds a 64 MiB line in PTY-sized reads and checks the
// splitter counts it whole while keeping only its prefix.
func TestSplitterHugeLine(t *testing.T) {
	t.Parallel()
	const size = 64 << 20
	chunk := bytes.Repeat([]byte("x"), 4096)
	var got []Line
	s := NewSplitter(DefaultKeep, func(l Line) { got = append(got, Line{Text: bytes.Clone(l.Text), Len: l.Len, Newline: l.Newline}) })
	for n := 0; n < size; n += len(chunk) {
		s.Write(chunk)
	}
	s.Write([]byte("\nnext\n"))
	if len(got) != 2 || got[0].Len != size || len(got[0].Text) != DefaultKeep || !got[0].Truncated() || string(got[1].Text) != "next" {
		t.Fatalf("got %d lines; first Len=%d kept=%d", len(got), got[0].Len, len(got[0].Text))
	}
	if cap(s.partial) > 2*DefaultKeep {
		t.Errorf("splitter holds %d bytes after a huge line", cap(s.partial))
	}
}

// FuzzSplitter checks that any chunking of any input gives back exactly the
// input: lines joined with their newlines, nothing added, nothing lost.
func FuzzSplitter(f *testing.F) {
	f.Add([]byte("{\"type\":\"a\"}\nT: plain\n{\"b\":1}"), uint64(1))
	f.Add([]byte("\n\n\r\n"), uint64(7))
	f.Add([]byte("no newline at all"), uint64(3))
	f.Fuzz(func(t *testing.T, input []byte, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed))
		var chunks []int
		for n := 0; n < len(input); {
			c := 1 + r.IntN(16)
			chunks = append(chunks, c)
			n += c
		}
		var rebuilt []byte
		for _, l := range collect(t, 1<<20, input, chunks) {
			if int64(len(l.Text)) != l.Len {
				t.Fatalf("line truncated below keep: %d of %d", len(l.Text), l.Len)
			}
			rebuilt = append(rebuilt, l.Text...)
			if l.Newline {
				rebuilt = append(rebuilt, '\n')
			}
		}
		if !bytes.Equal(rebuilt, input) {
			t.Fatalf("rebuilt %q\nwant    %q", rebuilt, input)
		}
	})
}

// TestSplitterPending: between writes, the unfinished line is reported
// (the wrapper reads a question from it), and none once its newline came.
func TestSplitterPending(t *testing.T) {
	t.Parallel()
	s := NewSplitter(DefaultKeep, func(Line) {})
	if s.MidLine() || len(s.Pending()) != 0 {
		t.Fatalf("a new splitter is mid-line (%q)", s.Pending())
	}
	s.Write([]byte("done\nContinue? [y/N] "))
	if !s.MidLine() || string(s.Pending()) != "Continue? [y/N] " {
		t.Errorf("after a question without a newline: mid-line %v, pending %q", s.MidLine(), s.Pending())
	}
	s.Write([]byte("\n"))
	if s.MidLine() || len(s.Pending()) != 0 {
		t.Errorf("after its newline: mid-line %v, pending %q", s.MidLine(), s.Pending())
	}
}
