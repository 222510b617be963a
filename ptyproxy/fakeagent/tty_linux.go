package fakeagent

import (
	"bytes"
	"os"

	"golang.org/x/sys/unix"
)

// getTermios and setTermios are the ioctls that read and set a terminal's
// attributes.
const (
	getTermios = unix.TCGETS
	setTermios = unix.TCSETS
)

// sigIgnored returns the mask of ignored signals as /proc shows it: 16 hex
// digits, signal n at bit n-1.
func sigIgnored() (string, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "", false
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("SigIgn:")); ok {
			return string(bytes.TrimSpace(v)), true
		}
	}
	return "", false
}
