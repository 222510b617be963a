package proctable

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// procargs builds a kern.procargs2 record as the macOS kernel lays it out.
func procargs(argc uint32, exe string, pad int, rest ...string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, argc)
	b = append(b, exe...)
	b = append(b, make([]byte, 1+pad)...)
	for _, s := range rest {
		b = append(append(b, s...), 0)
	}
	return b
}

func TestEnvHas(t *testing.T) {
	t.Parallel()
	const kv = "CURSOR_WRAP_ATTEMPT=0123abcd"
	for _, tc := range []struct {
		name string
		rec  []byte
		want bool
	}{
		{"in the environment", procargs(2, "/usr/local/bin/node", 7, "node", "agent.js", "HOME=/Users/a", kv, "ptr_munge="), true},
		{"only as an argument", procargs(2, "/bin/sh", 3, "sh", kv, "HOME=/Users/a"), false},
		{"a longer value", procargs(1, "/bin/sleep", 0, "sleep", kv+"ef"), false},
		{"no environment", procargs(1, "/bin/sleep", 2, "sleep"), false},
		{"argc past the end", procargs(9, "/bin/sleep", 2, "sleep", kv), false},
		{"no padding", procargs(0, "/bin/x", 0, kv), true},
		{"truncated", procargs(1, "/bin/x", 0, "x", kv)[:20], false},
		{"empty", nil, false},
		{"no path end", []byte{1, 0, 0, 0, 'x', 'y'}, false},
	} {
		if got := EnvHas(tc.rec, kv); got != tc.want {
			t.Errorf("%s: EnvHas = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseCPUTime(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{
		// macOS (adv_cmds ps: "%3ld:%02ld.%02ld").
		"0:00.00":   0,
		"0:00.05":   50 * time.Millisecond,
		"1:02.50":   62*time.Second + 500*time.Millisecond,
		"123:04.99": 123*time.Minute + 4*time.Second + 990*time.Millisecond,
		// procps.
		"00:00:00":    0,
		"00:01:05":    65 * time.Second,
		"12:00:01":    12*time.Hour + time.Second,
		"2-03:04:05":  51*time.Hour + 4*time.Minute + 5*time.Second,
		"01:02:03.25": time.Hour + 2*time.Minute + 3*time.Second + 250*time.Millisecond,
	} {
		got, err := ParseCPUTime(in)
		if err != nil || got != want {
			t.Errorf("ParseCPUTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "5", "0:5.00", "0:60.00", "1:2:3:4", "a:00", "0:00.", "0:00.1234567", "-1:00", "0:-1", "99999999:00", "1-", "x-00:00"} {
		if d, err := ParseCPUTime(in); err == nil {
			t.Errorf("ParseCPUTime(%q) = %v, want an error", in, d)
		}
	}
}

func TestParsePS(t *testing.T) {
	t.Parallel()
	// macOS pads both columns; procps too; a header or a warning is skipped.
	out := []byte("  PID      TIME\n  501   0:01.25\n80123 12:00.00\n  777 00:00:03\nps: kill: bad pid\n\n")
	want := map[int]time.Duration{501: 1250 * time.Millisecond, 80123: 12 * time.Minute, 777: 3 * time.Second}
	if got := ParsePS(out); !maps.Equal(got, want) {
		t.Errorf("ParsePS = %v, want %v", got, want)
	}
}

// FuzzParseCPUTime checks ParseCPUTime against a reference written from
// the formats (a regexp, the fields' caps, exact arithmetic) on every input
// made only of ps's characters, and on any input that a time it reads is
// read again the same from its canonical form.
func FuzzParseCPUTime(f *testing.F) {
	for _, s := range []string{"0:00.05", "123:04.99", "2-03:04:05", "00:01:05", "1:2:3", "9999-99999:9999999:59.999999", " 1:00", "1-2-00:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseCPUTime(s)
		if strings.Trim(s, "0123456789-:.") == "" {
			want, ok := referenceCPUTime(s)
			if (err == nil) != ok || ok && d != want {
				t.Fatalf("ParseCPUTime(%q) = %v, %v; the reference reads %v, %v", s, d, err, want, ok)
			}
		}
		if err != nil {
			return
		}
		if d < 0 || d%time.Microsecond != 0 {
			t.Fatalf("ParseCPUTime(%q) = %v", s, d)
		}
		// Greedy into the capped fields: days, hours, then minutes.
		days := min(d/(24*time.Hour), 9999)
		rest := d - days*24*time.Hour
		hours := min(rest/time.Hour, 99999)
		rest -= hours * time.Hour
		canonical := fmt.Sprintf("%d-%d:%d:%02d.%06d", days, hours, rest/time.Minute, rest%time.Minute/time.Second, rest%time.Second/time.Microsecond)
		if again, err := ParseCPUTime(canonical); err != nil || again != d {
			t.Fatalf("ParseCPUTime(%q) = %v, but %q reads as %v, %v", s, d, canonical, again, err)
		}
	})
}

var cpuTimeFormat = regexp.MustCompile(`^(?:([0-9]+)-)?(?:([0-9]+):)?([0-9]+):([0-5][0-9])(?:\.([0-9]{1,6}))?$`)

// referenceCPUTime reads [DD-][HH:]MM:SS[.ffffff] with the caps
// ParseCPUTime documents, in exact arithmetic.
func referenceCPUTime(s string) (time.Duration, bool) {
	m := cpuTimeFormat.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	total := new(big.Int)
	for _, field := range []struct {
		text string
		max  int64
		unit time.Duration
	}{{m[1], 9999, 24 * time.Hour}, {m[2], 99999, time.Hour}, {m[3], 9999999, time.Minute}, {m[4], 59, time.Second}} {
		n, _ := new(big.Int).SetString(field.text, 10)
		if n == nil {
			continue // an optional field left out
		}
		if n.Cmp(big.NewInt(field.max)) > 0 {
			return 0, false
		}
		total.Add(total, n.Mul(n, big.NewInt(int64(field.unit))))
	}
	if frac := m[5]; frac != "" {
		n, _ := new(big.Int).SetString((frac + "00000")[:6], 10)
		total.Add(total, n.Mul(n, big.NewInt(int64(time.Microsecond))))
	}
	return time.Duration(total.Int64()), total.IsInt64()
}

// FuzzEnvHas checks EnvHas against a reference that splits the record at
// every NUL: the path, its padding (empty fields), argc arguments, each
// ended by a NUL, and the environment's entries after them.
func FuzzEnvHas(f *testing.F) {
	f.Add(procargs(2, "/usr/local/bin/node", 7, "node", "x", "A=1", "M=1"), "M=1")
	f.Add(procargs(1, "/bin/sh", 0, "M=1", "B=2"), "M=1")
	f.Add(procargs(0, "/bin/x", 3, "M=1"), "M=1")
	f.Add([]byte{255, 255, 255, 255, 0}, "M=1")
	f.Fuzz(func(t *testing.T, rec []byte, kv string) {
		if got, want := EnvHas(rec, kv), referenceEnvHas(rec, kv); got != want {
			t.Fatalf("EnvHas(%q, %q) = %v, the reference says %v", rec, kv, got, want)
		}
	})
}

func referenceEnvHas(rec []byte, kv string) bool {
	if len(rec) < 4 || kv == "" {
		return false
	}
	argc := uint64(binary.LittleEndian.Uint32(rec))
	fields := bytes.Split(rec[4:], []byte{0})
	if len(fields) < 2 {
		return false // the path has no end
	}
	fields = fields[1:]
	for len(fields) > 0 && len(fields[0]) == 0 {
		fields = fields[1:]
	}
	// The last field is what follows the last NUL: an argument must end
	// before it.
	if uint64(len(fields)) <= argc {
		return false
	}
	return slices.Contains(strs(fields[argc:]), kv)
}

func strs(fields [][]byte) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = string(f)
	}
	return out
}
