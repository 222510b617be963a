package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sharedDir makes a directory anyone may write into, as /tmp.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return dir
}

// archive makes a directory of n session logs, someone's.
func archive(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("cursor-wrap-%d-s%d.jsonl", 1000+i, i)), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestPlantedPrivateDirRefused: in a shared log dir, a private directory
// that is not one (a link to someone's archive, a directory others may
// read, another user's) is refused for everything: no log is written, none
// listed, none pruned, whatever is behind it left as it was.
func TestPlantedPrivateDirRefused(t *testing.T) {
	t.Parallel()
	private := fmt.Sprintf("cursor-wrap-%d", os.Geteuid())
	for name, plant := range map[string]func(t *testing.T, at string) string{
		"a link to an archive": func(t *testing.T, at string) string {
			behind := archive(t, 5)
			if err := os.Symlink(behind, at); err != nil {
				t.Fatal(err)
			}
			return behind
		},
		"a directory others may read": func(t *testing.T, at string) string {
			if err := os.CopyFS(at, os.DirFS(archive(t, 5))); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(at, 0o755); err != nil {
				t.Fatal(err)
			}
			return at
		},
		"another user's directory": func(t *testing.T, at string) string {
			if os.Geteuid() != 0 {
				t.Skip("giving a directory to another user needs root")
			}
			if err := os.CopyFS(at, os.DirFS(archive(t, 5))); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(at, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(at, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return at
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			shared := sharedDir(t)
			behind := plant(t, filepath.Join(shared, private))
			before := names(t, behind)
			err := Prune(shared, 2)
			if err == nil || !strings.Contains(err.Error(), "not a private directory of yours") {
				t.Errorf("prune: %v, want the directory refused", err)
			}
			if logs := List(shared); len(logs) != 0 {
				t.Errorf("listed %v", logs)
			}
			var reported error
			l := Open(shared, t0, func(err error) { reported = err })
			l.Close()
			if reported == nil || l.Path() != "" {
				t.Errorf("a log written: %q (report %v)", l.Path(), reported)
			}
			if _, err := Probe(shared); err == nil {
				t.Error("probe: the directory reads as writable")
			}
			if after := names(t, behind); !slices.Equal(before, after) {
				t.Errorf("behind the planted directory: %v, was %v", after, before)
			}
		})
	}
}

// TestFutureLogsSortOldest: a log named for a start later than now (the
// clock was ahead when it was written, then set back) sorts as the oldest,
// so the newest log is the last run's and pruning takes the future ones
// first; within a minute of now a log is still trusted.
func TestFutureLogsSortOldest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	ahead := now.Add(400 * 24 * time.Hour)
	write := func(at time.Time, id string) {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("cursor-wrap-%d-%s.jsonl", at.UnixMilli(), id)), []byte("{}\n"), 0o600)
	}
	write(ahead, "ahead1")
	write(ahead.Add(time.Second), "ahead2")
	write(now.Add(-time.Hour), "hour")
	write(now.Add(-time.Second), "last")
	write(now.Add(30*time.Second), "concurrent")
	var got []string
	for _, p := range List(dir) {
		_, id, _ := strings.Cut(strings.TrimPrefix(filepath.Base(p), "cursor-wrap-"), "-")
		got = append(got, strings.TrimSuffix(id, ".jsonl"))
	}
	if want := []string{"concurrent", "last", "hour", "ahead2", "ahead1"}; !slices.Equal(got, want) {
		t.Errorf("list %v, want %v", got, want)
	}
	if err := Prune(dir, 3); err != nil {
		t.Fatal(err)
	}
	if left := List(dir); len(left) != 3 || !strings.HasSuffix(left[2], "-hour.jsonl") {
		t.Errorf("pruned to %v, want the future logs gone", left)
	}
}

// TestProbe: a probe makes a missing log dir as a run would, private, and
// leaves nothing in it; in a shared one it names the private directory.
func TestProbe(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state", "logs")
	if got, err := Probe(dir); err != nil || got != dir {
		t.Fatalf("probe: %q, %v", got, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 || len(names(t, dir)) != 0 {
		t.Errorf("after the probe: %v, %v, %v", fi.Mode(), err, names(t, dir))
	}
	shared := sharedDir(t)
	want := filepath.Join(shared, fmt.Sprintf("cursor-wrap-%d", os.Geteuid()))
	if got, err := Probe(shared); err != nil || got != want {
		t.Errorf("probe of a shared dir: %q, %v; want %s", got, err, want)
	}
}
