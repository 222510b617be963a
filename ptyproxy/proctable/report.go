package proctable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"time"
)

// EnvHas reports whether kv ("NAME=VALUE") is in the environment of a
// kern.procargs2 record: argc (32 bits, little-endian on every Mac), the
// executable path, NUL padding, argc NUL-terminated arguments, then the
// environment, one NUL-terminated entry each (the Apple runtime's own
// entries follow; they never equal a marker).
func EnvHas(procargs []byte, kv string) bool {
	if len(procargs) < 4 || kv == "" {
		return false
	}
	argc := int(binary.LittleEndian.Uint32(procargs))
	rest := procargs[4:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return false
	}
	rest = bytes.TrimLeft(rest[i:], "\x00")
	for range argc {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
	}
	for len(rest) > 0 {
		entry, after, _ := bytes.Cut(rest, []byte{0})
		if string(entry) == kv {
			return true
		}
		rest = after
	}
	return false
}

// ParsePS reads the output of `ps -o pid= -o time= -p PIDS` into each
// pid's CPU time. Lines it cannot read are skipped.
func ParsePS(out []byte) map[int]time.Duration {
	cpu := map[int]time.Duration{}
	for line := range bytes.Lines(out) {
		f := strings.Fields(string(line))
		if len(f) != 2 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 0 {
			continue
		}
		d, err := ParseCPUTime(f[1])
		if err != nil {
			continue
		}
		cpu[pid] = d
	}
	return cpu
}

var errCPUTime = errors.New("not a CPU time as ps prints one")

// ParseCPUTime reads ps's "time" column in either dialect: macOS and the
// BSDs print minutes, seconds and hundredths (M:SS.ss, the minutes
// unbounded), procps prints [DD-]HH:MM:SS.
func ParseCPUTime(s string) (time.Duration, error) {
	// Each field is capped so that no sum of them overflows a Duration.
	num := func(s string, max uint64) (time.Duration, bool) {
		n, err := strconv.ParseUint(s, 10, 64)
		return time.Duration(n), err == nil && n <= max
	}
	var d time.Duration
	if days, rest, ok := strings.Cut(s, "-"); ok {
		n, ok := num(days, 9999)
		if !ok {
			return 0, errCPUTime
		}
		d, s = n*24*time.Hour, rest
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, errCPUTime
	}
	secText, frac, hasFrac := strings.Cut(parts[len(parts)-1], ".")
	sec, ok := num(secText, 59)
	if !ok || len(secText) != 2 {
		return 0, errCPUTime
	}
	d += sec * time.Second
	if hasFrac {
		n, ok := num(frac, 999999)
		if !ok || len(frac) == 0 || len(frac) > 6 {
			return 0, errCPUTime
		}
		for range 6 - len(frac) {
			n *= 10
		}
		d += n * time.Microsecond
	}
	mins, ok := num(strings.TrimSpace(parts[len(parts)-2]), 9999999)
	if !ok {
		return 0, errCPUTime
	}
	d += mins * time.Minute
	if len(parts) == 3 {
		h, ok := num(strings.TrimSpace(parts[0]), 99999)
		if !ok {
			return 0, errCPUTime
		}
		d += h * time.Hour
	}
	return d, nil
}
