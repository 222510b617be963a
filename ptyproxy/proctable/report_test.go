package proctable

import (
	"bytes"
	"encoding/binary"
	"maps"
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

func FuzzParseCPUTime(f *testing.F) {
	for _, s := range []string{"0:00.05", "123:04.99", "2-03:04:05", "00:01:05", "1:2:3", "9999-99999:9999999:59.999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseCPUTime(s)
		if err == nil && d < 0 {
			t.Fatalf("ParseCPUTime(%q) = %v: negative", s, d)
		}
	})
}

func FuzzEnvHas(f *testing.F) {
	f.Add(procargs(2, "/usr/local/bin/node", 7, "node", "x", "A=1", "M=1"), "M=1")
	f.Add([]byte{255, 255, 255, 255, 0}, "M=1")
	f.Fuzz(func(t *testing.T, rec []byte, kv string) {
		if EnvHas(rec, kv) && !bytes.Contains(rec, []byte(kv)) {
			t.Fatalf("EnvHas found %q where it is not", kv)
		}
	})
}

// TestCPUTotal checks the total never goes back: not when a process exits,
// not when ps misses one, not when a pid comes back as another process.
func TestCPUTotal(t *testing.T) {
	t.Parallel()
	agent, tool, again := ID{10, 1}, ID{11, 2}, ID{11, 9}
	var c CPUTotal
	for i, step := range []struct {
		live []ID
		cpu  map[int]time.Duration
		want time.Duration
	}{
		{[]ID{agent, tool}, map[int]time.Duration{10: 100, 11: 50}, 150},
		{[]ID{agent, tool}, map[int]time.Duration{10: 120}, 170},         // ps missed the tool
		{[]ID{agent, tool}, map[int]time.Duration{10: 130, 11: 80}, 210}, //
		{[]ID{agent}, map[int]time.Duration{10: 140}, 220},               // the tool exited with 80
		{[]ID{agent, again}, map[int]time.Duration{10: 140, 11: 5}, 225}, // its pid, reused
		{[]ID{agent, again}, map[int]time.Duration{10: 90, 11: 5}, 225},  // a value going back is ignored
		{nil, nil, 225},
	} {
		if got := c.Add(step.live, step.cpu); got != step.want {
			t.Errorf("step %d: total %d, want %d", i, got, step.want)
		}
	}
}
