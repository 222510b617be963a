package sessionlog

import (
	"encoding/base64"
	"encoding/binary"
	"log/slog"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf8"
)

// An Event is one line of agent output as its "event" record holds it; it
// is read back as an EventLine.
type Event struct {
	Time    time.Time
	RecvTS  int64 // Unix ms
	AgentTS int64 // the agent's timestamp_ms, 0 if none
	Type    string
	Subtype string
	CallID  string
	Raw     []byte // the line as kept (see Truncated)
	// ParseError marks a line that is not JSON; Truncated one longer
	// than was kept (Len is its length); Partial a last line without a
	// newline.
	ParseError bool
	Truncated  bool
	Len        int64
	Partial    bool
}

// AppendEvent appends e as one "event" record, in the JSON shape slog's
// JSON handler gives every other record. Event records are the one record
// per line of output, so they skip slog's generic path, which cost 3.5 µs
// a 1 KiB line (most of it escaping byte by byte, some of it recording the
// caller) against a few hundred nanoseconds here.
func AppendEvent(b []byte, e Event) []byte {
	return appendEvent(b, e, utf8.Valid(e.Raw))
}

// appendEvent is AppendEvent for a line whose UTF-8 validity the caller
// already checked: on the per-line path it is checked once.
func appendEvent(b []byte, e Event, valid bool) []byte {
	b = appendHeader(b, e.Time, slog.LevelDebug, msgEvent)
	b = append(b, `,"recv_ts":`...)
	b = strconv.AppendInt(b, e.RecvTS, 10)
	if e.AgentTS != 0 {
		b = append(b, `,"agent_ts":`...)
		b = strconv.AppendInt(b, e.AgentTS, 10)
	}
	for _, f := range [...]struct{ key, value string }{{"type", e.Type}, {"subtype", e.Subtype}, {"call_id", e.CallID}} {
		if f.value != "" {
			b = append(b, `,"`...)
			b = append(b, f.key...)
			b = append(b, `":`...)
			b = appendString(b, []byte(f.value)) // Short: type, subtype, call id.
		}
	}
	if valid {
		b = append(b, `,"raw":`...)
		b = appendString(b, e.Raw)
	} else {
		// A JSON string cannot hold invalid UTF-8 (it would become U+FFFD),
		// so such a line is kept exactly, in base64.
		b = append(b, `,"raw_base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, e.Raw)
		b = append(b, '"')
	}
	if e.ParseError {
		b = append(b, `,"parse_error":true`...)
	}
	if e.Truncated {
		b = append(b, `,"truncated":true,"len":`...)
		b = strconv.AppendInt(b, e.Len, 10)
	}
	if e.Partial {
		b = append(b, `,"partial":true`...)
	}
	return append(b, "}\n"...)
}

// appendString appends s as a JSON string, as slog writes it. s must be
// valid UTF-8. The bytes that need no escape are skipped a word at a time
// (nextSuspect), and each run of them is copied at once.
func appendString(b, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := nextSuspect(s, 0); i < len(s); i = nextSuspect(s, i) {
		c := s[i]
		if c == 0xe2 {
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
				// U+2028 and U+2029 end lines in JavaScript; slog escapes them.
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xf])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// nextSuspect returns the index of the first byte of s at or after i that
// may need an escape (see suspects), or len(s).
func nextSuspect(s []byte, i int) int {
	for ; i+16 <= len(s); i += 16 {
		if m := suspects(binary.LittleEndian.Uint64(s[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		if m := suspects(binary.LittleEndian.Uint64(s[i+8:])); m != 0 {
			return i + 8 + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == 0xe2 {
			return i
		}
	}
	return i
}

// suspects marks the bytes of w (read little-endian) that may need an
// escape: control bytes, '"', '\\', and 0xe2, the lead byte of U+2028 and
// U+2029. Its lowest set bit, if any, is the top bit of the first such
// byte; the bits above it may be false (a borrow carries into them).
func suspects(w uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q, bs := w^(lo*'"'), w^(lo*'\\')
	if w&hi == 0 {
		// ASCII only: no byte is 0xe2, and no byte has its top bit set,
		// so the tests for a zero byte need no "&^ x".
		return ((w - lo*0x20) | (q - lo) | (bs - lo)) & hi
	}
	e2 := w ^ (lo * 0xe2)
	return ((w-lo*0x20)&^w | (q-lo)&^q | (bs-lo)&^bs | (e2-lo)&^e2) & hi
}

const hex = "0123456789abcdef"
