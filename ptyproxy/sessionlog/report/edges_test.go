package report

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/stream"
)

// TestReadAllRunningAndMany: a log its wrapper still holds is counted
// running, not read nor skipped, unless it already ended; and every log is
// read however many processors share the work. (Not parallel: it sets
// GOMAXPROCS.)
func TestReadAllRunningAndMany(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hold := func(path string) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
			t.Fatal(err)
		}
	}
	running := write("cursor-wrap-1.jsonl", newLog("claude", "r1", 1).bytes())
	hold(running)
	ended := write("cursor-wrap-2.jsonl", newLog("claude", "r2", 1).exit("exited", 0, "").bytes())
	hold(ended) // its wrapper is writing its last lines
	paths := []string{running, ended}
	for i := range 10 {
		paths = append(paths, write("cursor-wrap-x"+string(rune('a'+i))+".jsonl", newLog("codex", "", 1).exit("hung", 124, "").bytes()))
	}
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	for _, n := range []int{1, 3, 8} {
		runtime.GOMAXPROCS(n)
		attempts, skipped, run := ReadAll(paths)
		if len(attempts) != 11 || skipped != 0 || run != 1 {
			t.Fatalf("GOMAXPROCS %d: read %d, skipped %d, running %d; want 11, 0, 1", n, len(attempts), skipped, run)
		}
		// In the order given.
		if attempts[0].Path != ended || attempts[0].Agent != "claude" || attempts[10].Path != paths[11] {
			t.Errorf("GOMAXPROCS %d: attempts out of order: first %s, last %s", n, attempts[0].Path, attempts[10].Path)
		}
	}
}

// TestRunsJoinByNumberOnly: a log without a run id joins the newest run of
// its agent, without an id either, whose last attempt was the one before
// it; never a run with an id, nor another agent's, nor one whose last
// attempt does not come just before.
func TestRunsJoinByNumberOnly(t *testing.T) {
	t.Parallel()
	runs := Runs([]Attempt{
		attempt("codex", "", 1, 0, time.Second, "hung", 124, nil),
		attempt("codex", "", 1, time.Minute, time.Second, "hung", 124, nil),
		attempt("codex", "", 2, 2*time.Minute, time.Second, "exited", 0, nil), // the newer one's restart
		attempt("claude", "id", 1, 3*time.Minute, time.Second, "hung", 124, nil),
		attempt("claude", "", 2, 4*time.Minute, time.Second, "exited", 0, nil), // not the run with an id
		attempt("gemini", "", 2, 5*time.Minute, time.Second, "exited", 0, nil), // no gemini run before
		attempt("cursor", "", 1, 6*time.Minute, time.Second, "hung", 124, nil),
		attempt("cursor", "", 3, 7*time.Minute, time.Second, "exited", 0, nil), // its attempt 2 pruned
	})
	var got []int
	for _, r := range runs {
		got = append(got, r.Attempts)
	}
	if want := []int{1, 2, 1, 1, 1, 1, 1}; !equal(got, want) {
		t.Errorf("attempts per run %v, want %v", got, want)
	}
	// The first run of all can be joined too.
	runs = Runs([]Attempt{
		attempt("codex", "", 1, 0, time.Second, "hung", 124, nil),
		attempt("codex", "", 2, time.Minute, time.Second, "exited", 0, nil),
	})
	if len(runs) != 1 || runs[0].Attempts != 2 || !runs[0].Start.Equal(t0) {
		t.Errorf("runs %+v, want one of two attempts from t0", runs)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRunDuration: a run that has not ended has no duration; one whose
// clock stepped back before it ended took 0, never a negative time.
func TestRunDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		run   Run
		want  time.Duration
		ended bool
	}{
		{"not ended", Run{Start: t0}, 0, false},
		{"ended", Run{Start: t0, End: t0.Add(time.Minute)}, time.Minute, true},
		{"the clock stepped back", Run{Start: t0, End: t0.Add(-time.Minute)}, 0, true},
	} {
		if d, ok := tc.run.Duration(); d != tc.want || ok != tc.ended {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, d, ok, tc.want, tc.ended)
		}
	}
}

// TestGroupsInOrder: groups come by day, then by agent, whatever order the
// runs came in; each counts its runs' attempts and kinds.
func TestGroupsInOrder(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	hang := func(agent string, start time.Duration, attempts int, kind string) Run {
		a := attempt(agent, "", 1, start, time.Second, "hung", 124, &stream.Usage{Input: 1})
		a.HangKind = kind
		return Run{Agent: agent, Start: a.Start, End: a.End, Attempts: attempts, Last: a, Usage: a.Usage}
	}
	groups, total := Summarize([]Run{
		hang("codex", day, 1, "tool"),
		hang("claude", day, 2, "tool"),
		hang("codex", 0, 3, "silent"),
		hang("codex", 0, 1, "tool"),
		hang("claude", day+time.Hour, 1, "tool"),
	})
	type key struct {
		day, agent string
		attempts   int
	}
	d0, d1 := Day(t0), Day(t0.Add(day))
	want := []key{{d0, "codex", 4}, {d1, "claude", 3}, {d1, "codex", 1}}
	if len(groups) != len(want) {
		t.Fatalf("groups %+v", groups)
	}
	for i, g := range groups {
		if (key{g.Day, g.Agent, g.Attempts}) != want[i] {
			t.Errorf("group %d: %s %s %d attempts, want %v", i, g.Day, g.Agent, g.Attempts, want[i])
		}
	}
	if k := groups[0].Ended[Hung].Kinds; k["silent"] != 1 || k["tool"] != 1 || groups[1].Ended[Hung].Kinds["tool"] != 2 {
		t.Errorf("hang kinds %v, %v", k, groups[1].Ended[Hung].Kinds)
	}
	if total.Attempts != 8 || total.Runs != 5 || total.Ended[Hung].Runs != 5 || total.Usage.InputTokens != 5 {
		t.Errorf("total %+v", total)
	}
	if total.Usage.CostUSD != nil || total.Usage.RunsWithCost != 0 {
		t.Errorf("no cost stated, total cost %v over %d runs", total.Usage.CostUSD, total.Usage.RunsWithCost)
	}
}

// TestPercentile: the nearest rank, at the edges of the ranks.
func TestPercentile(t *testing.T) {
	t.Parallel()
	d := func(n int) []time.Duration {
		var out []time.Duration
		for i := 1; i <= n; i++ {
			out = append(out, time.Duration(i))
		}
		return out
	}
	for _, tc := range []struct {
		n, p int
		want time.Duration
	}{
		{0, 50, 0}, {1, 50, 1}, {1, 95, 1}, {2, 50, 1}, {2, 95, 2}, {3, 50, 2}, {20, 95, 19}, {21, 95, 20}, {100, 95, 95}, {101, 50, 51},
	} {
		if got := percentile(d(tc.n), tc.p); got != tc.want {
			t.Errorf("percentile(1..%d, %d) = %d, want %d", tc.n, tc.p, got, tc.want)
		}
	}
}
