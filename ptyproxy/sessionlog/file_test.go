package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/scripts/testenv"
)

var t0 = time.UnixMilli(1795646667106)

func TestFileModesAndRename(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "logs")
	os.MkdirAll(dir, 0o755) // an existing directory of the user's: left as it is
	os.WriteFile(filepath.Join(dir, "cursor-wrap-1795646667106-abc.jsonl"), []byte("older\n"), 0o600)
	var reports atomic.Int32
	l := Open(dir, t0, func(error) { reports.Add(1) })
	if got := filepath.Base(l.Path()); got != "cursor-wrap-1795646667106.jsonl" {
		t.Errorf("name before the session id %s", got)
	}
	l.Write(masked(`{"msg":"one"}` + "\n"))
	l.Rename("abc") // taken: a suffix, never a replacement
	l.Write(masked(`{"msg":"two"}` + "\n"))
	l.Close()
	if got := filepath.Base(l.Path()); got != "cursor-wrap-1795646667106-abc-2.jsonl" {
		t.Errorf("renamed to %s", got)
	}
	data, _ := os.ReadFile(l.Path())
	if string(data) != "{\"msg\":\"one\"}\n{\"msg\":\"two\"}\n" {
		t.Errorf("content %q", data)
	}
	if older, _ := os.ReadFile(filepath.Join(dir, "cursor-wrap-1795646667106-abc.jsonl")); string(older) != "older\n" {
		t.Errorf("existing log replaced: %q", older)
	}
	fi, _ := os.Stat(l.Path())
	di, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o755 {
		t.Errorf("modes: file %v, dir %v", fi.Mode().Perm(), di.Mode().Perm())
	}
	if reports.Load() != 0 {
		t.Errorf("%d failures reported", reports.Load())
	}
}

// TestSharedLogDir: a log dir others can write into (/tmp) is never
// re-moded; the logs go into a private directory in it, and one that an
// attacker planted there first is refused.
func TestSharedLogDir(t *testing.T) {
	t.Parallel()
	tmp := filepath.Join(t.TempDir(), "tmp")
	os.Mkdir(tmp, 0o777)
	os.Chmod(tmp, 0o777|os.ModeSticky)
	l := Open(tmp, t0, func(err error) { t.Errorf("report: %v", err) })
	l.Write(masked(`{"msg":"one"}` + "\n"))
	l.Close()
	private := filepath.Join(tmp, fmt.Sprintf("cursor-wrap-%d", os.Geteuid()))
	if filepath.Dir(l.Path()) != private {
		t.Errorf("log at %s, want in %s", l.Path(), private)
	}
	ti, _ := os.Stat(tmp)
	pi, _ := os.Stat(private)
	if ti.Mode() != os.ModeDir|os.ModeSticky|0o777 || pi.Mode().Perm() != 0o700 {
		t.Errorf("modes: shared %v, private %v", ti.Mode(), pi.Mode())
	}
	if got := List(tmp); len(got) != 1 || got[0] != l.Path() {
		t.Errorf("List(%s) = %v", tmp, got)
	}

	planted := filepath.Join(t.TempDir(), "planted")
	os.Mkdir(planted, 0o777)
	os.Chmod(planted, 0o777)
	os.Symlink(t.TempDir(), filepath.Join(planted, fmt.Sprintf("cursor-wrap-%d", os.Geteuid())))
	var reported error
	l2 := Open(planted, t0, func(err error) { reported = err })
	l2.Close()
	if reported == nil || !strings.Contains(reported.Error(), "not a private directory of yours") || l2.Path() != "" {
		t.Errorf("a planted link: report %v, path %q", reported, l2.Path())
	}
}

// TestPruneSparesRunning: a log whose attempt is still running is never
// pruned, however many newer ones there are.
func TestPruneSparesRunning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	running := Open(dir, time.UnixMilli(100), nil)
	running.Write(masked("{}\n"))
	running.Sync()
	for _, ms := range []int{200, 300, 400} {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("cursor-wrap-%d-x.jsonl", ms)), []byte("{}\n"), 0o600)
	}
	os.WriteFile(filepath.Join(dir, "cursor-wrap-50-old.jsonl"), []byte("{}\n"), 0o600)
	if err := Prune(dir, 2); err != nil {
		t.Fatal(err)
	}
	if !Running(running.Path()) {
		t.Error("the running log does not read as running")
	}
	var left []string
	for _, p := range List(dir) {
		left = append(left, filepath.Base(p))
	}
	if strings.Join(left, " ") != "cursor-wrap-400-x.jsonl cursor-wrap-300-x.jsonl cursor-wrap-100.jsonl" {
		t.Errorf("left %v", left)
	}
	running.Close()
	if Running(running.Path()) {
		t.Error("a closed log reads as running")
	}
}

func TestSafeID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"b7a9-12": "b7a9-12", "../x/y": ".._x_y", "": "unnamed", "..": "unnamed", "a\nb": "a_b"} {
		if got := safeID(in); got != want {
			t.Errorf("safeID(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnwritableDir puts the log dir under a regular file, which fails even
// for root, and checks the failure is reported once and nothing breaks.
func TestUnwritableDir(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	var errs []error
	l := Open(filepath.Join(file, "logs"), t0, func(err error) { errs = append(errs, err) })
	for range 100 {
		l.Write(masked("{}\n"))
	}
	l.Rename("x")
	l.Sync()
	l.Close()
	if len(errs) != 1 || l.Path() != "" {
		t.Errorf("reports %v, path %q", errs, l.Path())
	}
}

// TestFullDisk writes to /dev/full: every write fails with ENOSPC, which is
// reported once; Sync and Close still return.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		testenv.SkipOutsideCI(t, "no /dev/full: %v", err)
	}
	var errs []error
	l := newFile(func(err error) { errs = append(errs, err) }, "/dev", t0)
	l.f, l.name = f, "full"
	close(l.ready)
	go l.loop()
	for range 10 {
		l.Write(masked(`{"msg":"x"}` + "\n"))
		l.Sync()
	}
	l.Close()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "no space") {
		t.Errorf("reports %v", errs)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dropped != 10 {
		t.Errorf("dropped %d records, want 10", l.dropped)
	}
}

func TestPrune(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"cursor-wrap-100-a.jsonl", "cursor-wrap-300-c.jsonl", "cursor-wrap-200.jsonl", "cursor-wrap-50-x.jsonl", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	if err := Prune(dir, 2); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	var names []string
	for _, p := range left {
		names = append(names, filepath.Base(p))
	}
	if strings.Join(names, " ") != "cursor-wrap-200.jsonl cursor-wrap-300-c.jsonl notes.txt" {
		t.Errorf("left %v", names)
	}
	if logs := List(dir); len(logs) != 2 || filepath.Base(logs[0]) != "cursor-wrap-300-c.jsonl" {
		t.Errorf("list %v, newest first", logs)
	}
	if err := Prune(filepath.Join(dir, "missing"), 2); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("prune of a missing dir: %v", err)
	}
}

// pipeFile is a File writing into a pipe whose far end the test drains,
// standing in for a disk that is slow or stuck.
func pipeFile(t *testing.T) (*File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	l := newFile(nil, "/dev", t0)
	l.f, l.name = w, "pipe"
	close(l.ready)
	go l.loop()
	return l, r
}

var bigRecord = []byte(`{"msg":"event","raw":"` + strings.Repeat("x", 64<<10) + `"}` + "\n")

// TestSlowDiskWaits checks a queue that fills while the disk is behind:
// writes wait for room before they drop anything, and every record either
// reaches the disk or is counted in a log_dropped record.
func TestSlowDiskWaits(t *testing.T) {
	t.Parallel()
	l, r := pipeFile(t)
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	const writes = 100 // 6.5 MB, three times the queue
	for range writes {
		l.Write(masked(bigRecord))
	}
	l.Close()
	out := <-got
	kept, noted := 0, 0
	for line := range bytes.Lines(out) {
		if bytes.Equal(line, bigRecord) {
			kept++
			continue
		}
		var d struct{ Records int }
		if json.Unmarshal(line, &d) != nil {
			t.Fatalf("not a record: %.100q", line)
		}
		noted += d.Records
	}
	if kept+noted+l.dropped != writes {
		t.Errorf("%d records kept, %d noted as dropped, %d dropped unnoted: some were lost", kept, noted, l.dropped)
	}
	// On a machine that keeps up none is dropped; a loaded one may drop,
	// but only after the writes waited for the disk.
	if kept < writes && l.waits == 0 {
		t.Errorf("%d records dropped without waiting for the disk", writes-kept)
	}
}

// TestStuckDiskDrops checks a disk that does not move: the wait is paid
// once, then records are dropped at once, so the session is not slowed.
func TestStuckDiskDrops(t *testing.T) {
	t.Parallel()
	l, _ := pipeFile(t) // nobody reads the pipe: its 64 KiB fill, then writes block
	for range 200 {
		l.Write(masked(bigRecord))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// The wait is paid once for the queue, and once more for the buffer
	// the writer took before it blocked.
	if l.waits > 2 {
		t.Errorf("200 writes to a stuck disk waited %d times", l.waits)
	}
	if l.dropped == 0 || !l.lagging {
		t.Errorf("dropped %d, lagging %v", l.dropped, l.lagging)
	}
}

// masked is a record as a Redactor hands it to a File: these hold no secret.
func masked[T string | []byte](s T) redact.Masked { return (*redact.Redactor)(nil).Mask([]byte(s)) }
