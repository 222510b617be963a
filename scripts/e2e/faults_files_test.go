package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeSessionLog writes the log of an ended run of session id, started
// at start, as another wrapper would have.
func writeSessionLog(t *testing.T, dir string, start time.Time, id string) string {
	t.Helper()
	at := func(d time.Duration) string { return start.Add(d).UTC().Format(time.RFC3339Nano) }
	log := fmt.Sprintf(`{"time":%q,"level":"INFO","msg":"command","attempt":1,"agent":"cursor","path":"/usr/bin/cursor-agent","argv":["-p","%s prompt"],"env":[],"watch":"events"}
{"time":%q,"level":"INFO","msg":"start","pid":42,"dir":"","tick_ms":5000,"activity_probe":true}
{"time":%q,"level":"DEBUG","msg":"event","recv_ts":%d,"type":"system","subtype":"init","raw":{"type":"system","subtype":"init","session_id":%q}}
{"time":%q,"level":"INFO","msg":"exit","cause":"exited","status":0,"duration_ms":1000,"lines":1,"tool_calls":0,"longest_silence_ms":0}
`, at(0), id, at(time.Millisecond), at(2*time.Millisecond), start.Add(2*time.Millisecond).UnixMilli(), id, at(time.Second))
	path := filepath.Join(dir, fmt.Sprintf("cursor-wrap-%d-%s.jsonl", start.UnixMilli(), id))
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func initFor(id string) string {
	return `{"type":"system","subtype":"init","session_id":"` + id + `"}`
}

func resultFor(id string) string {
	return `{"type":"result","subtype":"success","session_id":"` + id + `"}`
}

// TestFaultPlantedLinkInASharedLogDir (33.2): in a log dir others may write
// into, a cursor-wrap-UID link to someone's archive was refused for writing
// but followed by prune (3 of its 5 logs deleted with --log-keep 2) and by
// sessions, which listed them. It is now refused for all three.
func TestFaultPlantedLinkInASharedLogDir(t *testing.T) {
	t.Parallel()
	shared := filepath.Join(t.TempDir(), "tmp")
	os.Mkdir(shared, 0o777)
	os.Chmod(shared, 0o777|os.ModeSticky)
	archive := t.TempDir()
	for i := range 5 {
		writeSessionLog(t, archive, time.Now().Add(-time.Duration(5-i)*time.Hour), fmt.Sprintf("archived-%d", i))
	}
	before, _ := os.ReadDir(archive)
	if err := os.Symlink(archive, filepath.Join(shared, fmt.Sprintf("cursor-wrap-%d", os.Geteuid()))); err != nil {
		t.Fatal(err)
	}
	r := runWrapper(t, nil, nil, "--log-dir", shared, "--log-keep", "2", "--", "line", resultLine)
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("not a private directory of yours")) {
		t.Errorf("run: exit %d, want 0 with the log dir refused: %s", r.code, r.stderr)
	}
	// Prune runs beside the agent: one more run gives the first one's
	// time to finish, and the order of the two does not matter.
	runWrapper(t, nil, nil, "--log-dir", shared, "--log-keep", "2", "--", "line", resultLine)
	after, _ := os.ReadDir(archive)
	if len(after) != len(before) {
		t.Errorf("the archive behind the link holds %d logs, had %d", len(after), len(before))
	}
	out := runRaw(t, nil, "sessions", "--log-dir", shared)
	if out.code != 0 || bytes.Contains(out.stdout, []byte("archived-")) {
		t.Errorf("sessions listed the archive behind the link (exit %d):\n%s%s", out.code, out.stdout, out.stderr)
	}
}

// TestFaultLogsNamedAheadOfTheClock (33.3): logs written while the clock
// was 400 days ahead sorted as newest for ever: with --log-keep 3 the next
// run deleted the run before it 1 s after it was written, and inspect
// --last showed a stale log. A start later than now is not trusted: such
// a log sorts as oldest.
func TestFaultLogsNamedAheadOfTheClock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	later := time.Now().Add(400 * 24 * time.Hour)
	for i := range 3 {
		writeSessionLog(t, dir, later.Add(time.Duration(i)*time.Minute), fmt.Sprintf("ahead-%d", i))
	}
	for _, id := range []string{"s-before", "s-last"} {
		if r := runWrapper(t, nil, nil, "--log-dir", dir, "--log-keep", "3", "--", "line", initFor(id), "line", resultFor(id)); r.code != 0 {
			t.Fatalf("%s: exit %d: %s", id, r.code, r.stderr)
		}
	}
	// Each run prunes beside its agent, and its own log may come before or
	// after: the second run found at least four logs, and once its prune is
	// done two of the future ones are left at most.
	var names []string
	ahead := func() int {
		return len(slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !strings.Contains(n, "-ahead-") }))
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		entries, _ := os.ReadDir(dir)
		names = names[:0]
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if ahead() <= 2 || time.Now().After(deadline) {
			break
		}
	}
	has := func(id string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, "-"+id+".jsonl") })
	}
	if !has("s-before") || !has("s-last") || ahead() > 2 {
		t.Errorf("logs left %v: want both runs' logs, the future ones pruned first", names)
	}
	out := runRaw(t, nil, "inspect", "--last", "--log-dir", dir)
	if !bytes.Contains(out.stdout, []byte("\nsession  s-last  (cursor)\n")) {
		t.Errorf("inspect --last: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	list := runRaw(t, nil, "sessions", "--limit", "1", "--log-dir", dir)
	if !bytes.Contains(list.stdout, []byte("s-last")) {
		t.Errorf("sessions --limit 1:\n%s%s", list.stdout, list.stderr)
	}
}
