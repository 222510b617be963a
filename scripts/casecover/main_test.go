package main

import (
	"context"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The profile comes from the Go toolchain's own cover tool, whose layout of
// blocks (a case clause counted from its colon) is what this fixes.
const (
	module = "module example.com/sw\n\ngo 1.26\n"
	code   = `package sw

func Size(n int) string {
	switch {
	case n > 10:
		return "big"
	case n > 0,
		n == -1:
		return "small"
	default:
		return "none"
	}
}

func Never(s string) int {
	switch s {
	case "a" + "b":
		return 1
	}
	return 0
}
`
	test = `package sw

import "testing"

func TestSize(t *testing.T) {
	if Size(11) != "big" || Size(1) != "small" {
		t.Fatal("wrong size")
	}
}
`
)

func TestCaseConditionsCounted(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": module, "sw.go": code, "sw_test.go": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	profile := filepath.Join(dir, "cover.out")
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-coverprofile", profile, "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	before := readBlocks(t, profile)
	t.Chdir(dir)
	if err := run(profile); err != nil {
		t.Fatal(err)
	}
	after := readBlocks(t, profile)

	for _, tc := range []struct {
		what         string
		line, column int
		before, want bool
	}{
		{"the first case's condition", 5, 9, false, true},
		{"a second case's first condition", 7, 9, false, true},
		{"a second case's condition on the next line", 8, 5, false, true},
		{"a case's body, counted by go test itself", 6, 3, true, true},
		{"the condition of a switch no test reached", 18, 11, false, false},
	} {
		p := token.Position{Line: tc.line, Column: tc.column}
		if got := ran(before, p); got != tc.before {
			t.Errorf("%s (%d:%d): go test's own profile counts it %v, not %v: the cover tool has changed how it lays out a switch", tc.what, tc.line, tc.column, got, tc.before)
		}
		if got := ran(after, p); got != tc.want {
			t.Errorf("%s (%d:%d): counted %v, want %v", tc.what, tc.line, tc.column, got, tc.want)
		}
	}
}

func readBlocks(t *testing.T, profile string) []block {
	t.Helper()
	text, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseProfile(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// ran says whether a block holding the position ran, as gremlins reads it.
func ran(blocks []block, p token.Position) bool {
	return countAt(blocks, "example.com/sw/sw.go", p) > 0
}

func TestParseProfileRefuses(t *testing.T) {
	for _, text := range []string{
		"",
		"cursor-wrap/x.go:1.1,2.2 1 1\n",
		"mode: set\ncursor-wrap/x.go 1.1,2.2 1 1\n",
		"mode: set\ncursor-wrap/x.go:1.1,2.2 one 1\n",
	} {
		if _, err := parseProfile(text); err == nil {
			t.Errorf("parseProfile(%q) read it", text)
		}
	}
	blocks, err := parseProfile("mode: set\nm/x.go:3.14,5.2 2 1\n")
	if want := (block{"m/x.go", 3, 14, 5, 2, 2, 1}); err != nil || len(blocks) != 1 || blocks[0] != want {
		t.Errorf("parseProfile = %v, %v; want [%v]", blocks, err, want)
	}
	if got := strings.TrimSpace(blocks[0].String()); got != "m/x.go:3.14,5.2 2 1" {
		t.Errorf("a block writes as %q", got)
	}
}
