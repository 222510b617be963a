package sessionlog

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// An Event is one line of agent output as its "event" record holds it.
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
//
// The line is "raw": the line's own JSON object when it is one (as slog
// writes a json.RawMessage), else a JSON string; "raw_base64" when it is
// not UTF-8. EventText reads it back whichever way it went.
func AppendEvent(b []byte, e Event) []byte {
	b = append(b, `{"time":"`...)
	b = e.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"DEBUG","msg":"event","recv_ts":`...)
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
	switch {
	case !e.ParseError && !e.Truncated && jsonObject(e.Raw):
		// Most lines are JSON objects already: kept as they are, they cost
		// a check and a copy instead of an escaping pass (a quarter less
		// time), and no escapes are added to them.
		b = append(b, `,"raw":`...)
		b = append(b, e.Raw...)
	case utf8.Valid(e.Raw):
		b = append(b, `,"raw":`...)
		b = appendString(b, e.Raw)
	default:
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

// EventText reads the line an event record holds, however it was written:
// "raw" as the line's own JSON object, "raw" as a JSON string (a line that
// is not a JSON object, and every line in logs written before objects were
// kept as they are), or "raw_base64" for a line that is not UTF-8. Embed it
// in the struct a record is decoded into and call Line.
type EventText struct {
	Raw    rawValue `json:"raw"`
	RawB64 []byte   `json:"raw_base64"`
}

// Line returns the line, byte for byte as the agent wrote it (up to the
// splitter's keep limit for a truncated line).
func (t EventText) Line() []byte {
	if t.RawB64 != nil {
		return t.RawB64
	}
	return t.Raw
}

// rawValue is "raw" decoded: a string's text, or an object's own bytes.
type rawValue []byte

func (v *rawValue) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = []byte(s)
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	*v = bytes.Clone(b) // b is the decoder's; the object's bytes as written
	return nil
}

// appendString appends s as a JSON string, as slog writes it. s must be
// valid UTF-8. Runs of bytes that need no escape are skipped eight at a
// time.
func appendString(b, s []byte) []byte {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	b = append(b, '"')
	start, i := 0, 0
	for i < len(s) {
		for ; i+8 <= len(s); i += 8 {
			// Does any byte need a look: a control byte, '"', '\', or 0xe2,
			// the lead byte of U+2028 and U+2029?
			w := binary.LittleEndian.Uint64(s[i:])
			q, bs, e2 := w^(lo*'"'), w^(lo*'\\'), w^(lo*0xe2)
			if ((w-lo*0x20)&^w|(q-lo)&^q|(bs-lo)&^bs|(e2-lo)&^e2)&hi != 0 {
				break
			}
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
			// U+2028 and U+2029 end lines in JavaScript; slog escapes them.
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xf])
			i += 3
			start = i
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
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

const hex = "0123456789abcdef"

// maxRawDepth bounds the nesting of a line kept as a JSON value: a deeper
// one is written as a string, which any JSON reader can take (decoders
// that recurse, as Python's does, stop at depths of a thousand or so).
const maxRawDepth = 64

// jsonObject reports whether b can sit in a record as it is: exactly one
// JSON object (RFC 8259: strict strings, escapes, numbers and literals),
// with nothing before or after it, valid UTF-8 throughout, nested no
// deeper than maxRawDepth. The stream's scanner is lenient (it skips what
// it does not read), so its verdict alone is not enough. Nothing that ends
// a line for some reader may pass, or the record would not be one line: no
// '\n' or '\r' between tokens, and no U+2028 or U+2029 in strings (which
// slog escapes, as JavaScript ends lines at them).
func jsonObject(b []byte) bool {
	n := len(b)
	if n < 2 || b[0] != '{' || b[n-1] != '}' {
		return false
	}
	var inObject [maxRawDepth]bool // per level: an object, else an array
	depth, i := 0, 0
	for {
		// A value starts at i (after space).
		i = skipSpace(b, i)
		if i >= n {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if depth == maxRawDepth {
				return false
			}
			inObject[depth] = c == '{'
			depth++
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			i = skipSpace(b, i+1)
			if i < n && b[i] == closer {
				i++
				depth--
				break
			}
			if c == '{' {
				if i = member(b, i); i < 0 {
					return false
				}
			}
			continue
		case '"':
			if i = skipString(b, i); i < 0 {
				return false
			}
		case 't':
			if i = literal(b, i, "true"); i < 0 {
				return false
			}
		case 'f':
			if i = literal(b, i, "false"); i < 0 {
				return false
			}
		case 'n':
			if i = literal(b, i, "null"); i < 0 {
				return false
			}
		default:
			if i = number(b, i); i < 0 {
				return false
			}
		}
		// After a value: close containers, or go on to the next value.
		for {
			if depth == 0 {
				return i == n
			}
			i = skipSpace(b, i)
			if i >= n {
				return false
			}
			obj := inObject[depth-1]
			if c := b[i]; c == ',' {
				i++
				if obj {
					if i = member(b, skipSpace(b, i)); i < 0 {
						return false
					}
				}
				break
			} else if obj && c == '}' || !obj && c == ']' {
				i++
				depth--
				continue
			}
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// member reads an object member's key and colon at b[i:], and returns
// where its value starts, or -1.
func member(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = skipString(b, i); i < 0 {
		return -1
	}
	if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

// skipString checks the string that opens at b[i] and returns the index
// after its closing quote, or -1. Runs of plain ASCII are skipped eight
// bytes at a time.
func skipString(b []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	n := len(b)
	i++
	for {
		for ; i+8 <= n; i += 8 {
			// Does any byte need a look: a control byte, '"', '\', or a
			// byte of a multi-byte sequence?
			w := binary.LittleEndian.Uint64(b[i:])
			q, bs := w^(lo*'"'), w^(lo*'\\')
			if ((w-lo*0x20)|(q-lo)&^q|(bs-lo)&^bs|w)&hi != 0 {
				break
			}
		}
		if i >= n {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= n {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > n || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return -1
			}
			i += size
		}
	}
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func literal(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// number checks a number at b[i:]: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func number(b []byte, i int) int {
	n := len(b)
	if i < n && b[i] == '-' {
		i++
	}
	switch {
	case i < n && b[i] == '0':
		i++
	case i < n && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < n && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
