package shellhook

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/scripts/testenv"
)

// newSelf makes a stand-in for the wrapper's own executable.
func newSelf(t *testing.T) string {
	return writeFile(t, filepath.Join(t.TempDir(), "cursor-wrap"), 0o755)
}

// writeFile makes a file with mode, and its directory.
func writeFile(t *testing.T, path string, mode os.FileMode) string {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // The umask may have cut bits.
		t.Fatal(err)
	}
	return path
}

// symlink makes link point at target, and link's directory.
func symlink(t *testing.T, target, link string) string {
	t.Helper()
	mkdir(t, filepath.Dir(link))
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestResolveExplicit(t *testing.T) {
	t.Parallel()
	self := newSelf(t)
	dir := t.TempDir()
	real := writeFile(t, filepath.Join(dir, "real-agent"), 0o755)
	onPath := writeFile(t, filepath.Join(dir, "bin", "my-agent"), 0o755)
	pathEnv := filepath.Join(dir, "bin")

	for _, c := range []struct {
		name, explicit string
		want           string
		err            error
	}{
		{"executable", real, real, nil},
		{"missing", filepath.Join(dir, "nope"), "", reaper.ErrNotFound},
		{"under a file", filepath.Join(real, "x"), "", reaper.ErrNotExecutable},
		{"not executable", writeFile(t, filepath.Join(dir, "plain"), 0o644), "", reaper.ErrNotExecutable},
		{"directory", dir, "", reaper.ErrNotExecutable},
		{"self", self, "", ErrIsWrapper},
		{"symlink to self", symlink(t, self, filepath.Join(dir, "cursor-agent")), "", ErrIsWrapper},
		{"bare name searched on PATH", "my-agent", onPath, nil},
		{"bare name missing", "other-agent", "", reaper.ErrNotFound},
	} {
		got, err := Resolve([]string{"cursor-agent"}, c.explicit, self, pathEnv)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("%s: Resolve = %q, %v; want %q, %v", c.name, got, err, c.want, c.err)
		}
		if errors.Is(err, ErrIsWrapper) && !strings.Contains(err.Error(), "agent_bin") {
			t.Errorf("%s: %v does not say how to set agent_bin", c.name, err)
		}
	}
}

func TestResolvePath(t *testing.T) {
	t.Parallel()
	self := newSelf(t)
	root := t.TempDir()
	d := func(name string) string { return filepath.Join(root, name) }
	agent := []string{"cursor-agent", "agent"}

	for _, c := range []struct {
		name  string
		setup func(t *testing.T)
		dirs  []string
		names []string
		want  string
		err   error
	}{
		{
			name: "symlink to self skipped",
			setup: func(t *testing.T) {
				symlink(t, self, d("s1/cursor-agent"))
				writeFile(t, d("s2/cursor-agent"), 0o755)
			},
			dirs: []string{"s1", "s2"}, want: "s2/cursor-agent",
		},
		{
			name: "relative symlink through a symlinked dir skipped",
			setup: func(t *testing.T) {
				symlink(t, filepath.Dir(self), d("wrapdir"))
				symlink(t, "../wrapdir/cursor-wrap", d("r1/cursor-agent"))
				writeFile(t, d("r2/cursor-agent"), 0o755)
			},
			dirs: []string{"r1", "r2"}, want: "r2/cursor-agent",
		},
		{
			name: "hard link to self skipped",
			setup: func(t *testing.T) {
				mkdir(t, d("h1"))
				if err := os.Link(self, d("h1/cursor-agent")); err != nil {
					testenv.SkipOutsideCI(t, "no hard links here: %v", err)
				}
				writeFile(t, d("h2/cursor-agent"), 0o755)
			},
			dirs: []string{"h1", "h2"}, want: "h2/cursor-agent",
		},
		{
			name: "only self",
			setup: func(t *testing.T) {
				symlink(t, self, d("o1/cursor-agent"))
				symlink(t, self, d("o2/agent"))
			},
			dirs: []string{"o1", "o2"}, err: ErrIsWrapper,
		},
		{
			name: "names before PATH order",
			setup: func(t *testing.T) {
				writeFile(t, d("n1/cursor-agent"), 0o755)
				writeFile(t, d("n2/agent"), 0o755)
			},
			dirs: []string{"n1", "n2"}, names: []string{"agent", "cursor-agent"}, want: "n2/agent",
		},
		{
			name:  "second name when the first is missing",
			setup: func(t *testing.T) { writeFile(t, d("m1/agent"), 0o755) },
			dirs:  []string{"m1"}, want: "m1/agent",
		},
		{
			name: "non-executable and directory skipped",
			setup: func(t *testing.T) {
				writeFile(t, d("x1/cursor-agent"), 0o644)
				mkdir(t, d("x2/cursor-agent"))
				writeFile(t, d("x3/cursor-agent"), 0o700)
			},
			dirs: []string{"x1", "x2", "x3"}, want: "x3/cursor-agent",
		},
		{
			name:  "only non-executable",
			setup: func(t *testing.T) { writeFile(t, d("y1/cursor-agent"), 0o644) },
			dirs:  []string{"y1"}, err: reaper.ErrNotExecutable,
		},
		{
			name:  "nothing",
			setup: func(t *testing.T) {},
			dirs:  []string{"z1", "z2"}, err: reaper.ErrNotFound,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.setup(t)
			names := agent
			if c.names != nil {
				names = c.names
			}
			var entries []string
			for _, dir := range c.dirs {
				entries = append(entries, d(dir))
			}
			got, err := Resolve(names, "", self, strings.Join(entries, ":"))
			want := ""
			if c.want != "" {
				want = d(c.want)
			}
			if got != want || !errors.Is(err, c.err) {
				t.Fatalf("Resolve = %q, %v; want %q, %v", got, err, want, c.err)
			}
			if c.err == ErrIsWrapper && !strings.Contains(err.Error(), "would run itself") {
				t.Errorf("%v does not say the wrapper would run itself", err)
			}
			if c.err == reaper.ErrNotFound && !strings.Contains(err.Error(), "cursor-agent or agent") {
				t.Errorf("%v does not name the binaries searched", err)
			}
		})
	}
}

// Not parallel: t.Chdir changes the whole process's directory.
func TestResolveSkipsRelativeAndEmptyEntries(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "cursor-agent"), 0o755)
	t.Chdir(dir)
	_, err := Resolve([]string{"cursor-agent"}, "", "", ":.:bin")
	if !errors.Is(err, reaper.ErrNotFound) {
		t.Errorf("Resolve through relative entries: %v, want reaper.ErrNotFound", err)
	}
}

func TestResolveUnknownSelf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	want := writeFile(t, filepath.Join(dir, "cursor-agent"), 0o755)
	got, err := Resolve([]string{"cursor-agent"}, "", "", dir)
	if got != want || err != nil {
		t.Errorf("Resolve with no self = %q, %v; want %q", got, err, want)
	}
}
