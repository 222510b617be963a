package stream

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner walks one JSON text without building values. It reads the few
// members it is asked for and skips the rest, so a line with a megabyte
// tool result costs one pass and no allocation. It is lenient where
// leniency is free (number syntax, escape validity) and strict about
// structure, so a line that is not a JSON object is told apart. Once it
// fails it stays failed; a text cut short (a truncated line) fails at the
// cut, after the members before it were read. A string that runs into that
// cut is read as far as it goes, and says so (cutString), so that an answer
// longer than the splitter keeps is kept in part, not lost.
type scanner struct {
	b   []byte
	i   int
	bad bool
	// rest is how many bytes of the line the splitter did not keep.
	rest int64
	// cutString is set when the last string read ran into the cut.
	cutString bool
}

// newScanner returns a scanner of the kept part of l.
func newScanner(l Line) scanner {
	return scanner{b: l.Text, rest: l.Len - int64(len(l.Text))}
}

// dropped is how many bytes the string just read lost to the splitter's
// cut, about (they are counted as the agent escaped them, with the JSON
// that closes the line): 0 when it was read whole.
func (s *scanner) dropped() int64 {
	if !s.cutString {
		return 0
	}
	return s.rest
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) fail() bool {
	s.bad = true
	return false
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.bad || s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// enter consumes the '{' that opens an object.
func (s *scanner) enter() bool {
	if s.peek() != '{' {
		return s.fail()
	}
	s.i++
	return true
}

// enterArray consumes the '[' that opens an array.
func (s *scanner) enterArray() bool {
	if s.peek() != '[' {
		return s.fail()
	}
	s.i++
	return true
}

// element moves to the next element of the array being walked, which the
// caller must read or skip. It returns false at the closing ']' (consumed)
// or on failure.
func (s *scanner) element(first bool) bool {
	c := s.peek()
	if c == ']' {
		s.i++
		return false
	}
	if !first {
		if c != ',' {
			return s.fail()
		}
		s.i++
	}
	return s.peek() != 0
}

// member reads the next key of the object being walked and the ':' after
// it, leaving the scanner at the value, which the caller must read or skip.
// first tells whether this is the object's first member. It returns false
// at the closing '}' (consumed) or on failure.
func (s *scanner) member(first bool) (key []byte, ok bool) {
	c := s.peek()
	if c == '}' {
		s.i++
		return nil, false
	}
	if !first {
		if c != ',' {
			return nil, s.fail()
		}
		s.i++
		c = s.peek()
	}
	if c != '"' {
		return nil, s.fail()
	}
	key, _, ok = s.str()
	if !ok || s.peek() != ':' {
		return nil, s.fail()
	}
	s.i++
	return key, true
}

// str reads a string and returns its raw contents (escapes not decoded)
// and whether it holds any escape.
func (s *scanner) str() (raw []byte, escaped bool, ok bool) {
	if s.peek() != '"' {
		return nil, false, s.fail()
	}
	start := s.i + 1
	j := start
	for {
		k := bytes.IndexByte(s.b[j:], '"')
		if k < 0 {
			s.i = len(s.b)
			if s.rest > 0 {
				raw = cutEnd(s.b[start:])
				s.cutString = true
				s.fail()
				return raw, bytes.IndexByte(raw, '\\') >= 0, true
			}
			return nil, false, s.fail()
		}
		j += k
		// A quote ends the string unless an odd run of backslashes escapes it.
		n := 0
		for p := j - 1; p >= start && s.b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			break
		}
		j++
	}
	raw = s.b[start:j]
	s.i = j + 1
	return raw, bytes.IndexByte(raw, '\\') >= 0, true
}

// cutEnd drops what the cut left unfinished at the end of a string's raw
// bytes, an escape sequence ("\\", "\\u00") or a UTF-8 sequence, so that
// what is kept decodes to whole characters.
func cutEnd(raw []byte) []byte {
	for i := 0; ; {
		k := bytes.IndexByte(raw[i:], '\\')
		if k < 0 {
			break
		}
		i += k
		n := 2
		if i+1 < len(raw) && raw[i+1] == 'u' {
			n = 6
		}
		if i+n > len(raw) {
			raw = raw[:i]
			break
		}
		i += n
	}
	for back := 1; back <= utf8.UTFMax && back <= len(raw); back++ {
		if start := len(raw) - back; utf8.RuneStart(raw[start]) {
			if !utf8.FullRune(raw[start:]) {
				raw = raw[:start]
			}
			break
		}
	}
	return raw
}

// strValue reads a string value, or skips a value of another type and
// reports it absent.
func (s *scanner) strValue() (raw []byte, escaped bool, ok bool) {
	if s.peek() != '"' {
		s.skip()
		return nil, false, false
	}
	return s.str()
}

// text reads a string value and decodes it.
func (s *scanner) text() (string, bool) {
	raw, escaped, ok := s.strValue()
	if !ok {
		return "", false
	}
	return decode(raw, escaped), true
}

// number reads a number token and returns its bytes.
func (s *scanner) number() ([]byte, bool) {
	s.ws()
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			s.i++
			continue
		}
		break
	}
	if s.i == start {
		return nil, s.fail()
	}
	return s.b[start:s.i], true
}

// numberValue reads a number, or skips a value of another type and
// reports it absent.
func (s *scanner) numberValue() ([]byte, bool) {
	c := s.peek()
	if c != '-' && (c < '0' || c > '9') {
		s.skip()
		return nil, false
	}
	return s.number()
}

// int64 reads a number and truncates it to an integer.
func (s *scanner) int64() (int64, bool) {
	b, ok := s.numberValue()
	if !ok {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != f || f > 9e18 || f < -9e18 {
		return 0, false
	}
	return int64(f), true
}

// skip consumes one value of any type.
func (s *scanner) skip() bool {
	switch c := s.peek(); c {
	case '"':
		_, _, ok := s.str()
		return ok
	case '{', '[':
		return s.skipNested()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case 0:
		return s.fail()
	default:
		_, ok := s.number()
		return ok
	}
}

// skipNested skips an object or array by counting brackets outside strings.
func (s *scanner) skipNested() bool {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if _, _, ok := s.str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		}
		s.i++
	}
	return s.fail()
}

func (s *scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return s.fail()
	}
	s.i += len(word)
	return true
}

// unescape decodes the escapes of a JSON string's raw contents the way
// encoding/json does, including U+FFFD for invalid UTF-8 and lone
// surrogates, so ids decoded here compare equal with ids decoded there.
func unescape(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			if c < utf8.RuneSelf {
				out = append(out, c)
				i++
				continue
			}
			r, size := utf8.DecodeRune(raw[i:])
			out = utf8.AppendRune(out, r)
			i += size
			continue
		}
		if i+1 >= len(raw) {
			break
		}
		e := raw[i+1]
		i += 2
		switch e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw, i)
			if !ok {
				out = append(out, '\\', 'u')
				continue
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2, ok2 = hex4(raw, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/' and anything else stand for themselves.
			out = append(out, e)
		}
	}
	return string(out)
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
