package timeline

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAttemptsByRun finds the attempts of a run beside the log of any of
// them by the run id of their command records, a restart that could not
// resume among them, and leaves another run's attempts alone.
func TestAttemptsByRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	write := func(at time.Duration, attempt int, run string) string {
		when := start.Add(at)
		path := filepath.Join(dir, fmt.Sprintf("cursor-wrap-%d.jsonl", when.UnixMilli()))
		log := fmt.Sprintf(`{"time":%q,"level":"INFO","msg":"command","attempt":%d,"run":%q,"agent":"cursor","path":"/a","argv":["-p","fix it"],"env":[],"watch":"events"}`+"\n",
			when.Format(time.RFC3339Nano), attempt, run)
		if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	first := write(0, 1, "r-1")
	write(time.Second, 1, "r-2")
	second := write(2*time.Second, 2, "r-1")
	write(3*time.Second, 2, "r-2")
	for _, from := range []string{first, second} {
		tl, err := Read(from, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range tl.Attempts(time.Second) {
			got = append(got, filepath.Base(a.Path))
		}
		if want := fmt.Sprint([]string{filepath.Base(first), filepath.Base(second)}); fmt.Sprint(got) != want {
			t.Errorf("from %s: attempts %v, want %v", filepath.Base(from), got, want)
		}
	}
}

// TestAttemptsBySession finds the attempts of a run in logs without a run
// id (written before it), by the session each restart resumes.
func TestAttemptsBySession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	write := func(at time.Duration, name string, attempt int, resume, session string) string {
		when := start.Add(at)
		path := filepath.Join(dir, fmt.Sprintf("cursor-wrap-%d-%s.jsonl", when.UnixMilli(), name))
		argv := `["-p","fix it"]`
		if resume != "" {
			argv = `["-p","--resume","` + resume + `","--","go on"]`
		}
		stamp := when.Format(time.RFC3339Nano)
		log := fmt.Sprintf(`{"time":%q,"level":"INFO","msg":"command","attempt":%d,"agent":"cursor","path":"/a","argv":%s,"env":[],"watch":"events"}
{"time":%q,"level":"DEBUG","msg":"event","recv_ts":%d,"type":"system","subtype":"init","raw":"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"%s\"}"}
`, stamp, attempt, argv, stamp, when.UnixMilli(), session)
		if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	first := write(0, "s-1", 1, "", "s-1")
	write(time.Second, "s-9", 1, "", "s-9")
	second := write(2*time.Second, "s-1", 2, "s-1", "s-1")
	write(3*time.Second, "s-9", 2, "s-9", "s-9")
	third := write(4*time.Second, "s-2", 3, "s-1", "s-2") // a resume that got a new id
	for _, from := range []string{first, second, third} {
		tl, err := Read(from, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		run := tl.Attempts(time.Second)
		var got []string
		for _, tl := range run {
			got = append(got, filepath.Base(tl.Path))
		}
		want := fmt.Sprint([]string{filepath.Base(first), filepath.Base(second), filepath.Base(third)})
		if fmt.Sprint(got) != want {
			t.Errorf("from %s: attempts %v, want %v", filepath.Base(from), got, want)
		}
	}
}
