package watchdog

import (
	"testing"
	"time"
)

// TestSilenceFromLastWork: a silence is measured from the last evidence,
// not from the last byte. After a tool of the open call ends, the agent
// gets the whole idle timeout to write (Gemini CLI on a loaded host took
// more than the one window it used to get, after a 20 s sleep); work seen
// again in the window before that deadline moves it on; and the
// max_silence cap still counts from the last byte.
func TestSilenceFromLastWork(t *testing.T) {
	t.Parallel()
	s := time.Second
	// tool is the open call's tool, asleep in its own session, from 200 ms
	// until end; cpu is the agent's own CPU, half a core, from..until.
	type span struct{ from, until time.Duration }
	tree := func(tool time.Duration, cpu ...span) func(time.Duration) Activity {
		return func(d time.Duration) Activity {
			var a Activity
			if d < tool {
				a.Procs = []Proc{{Pid: 7, Started: at(200 * time.Millisecond), Under: true, OwnSession: true}}
			}
			for _, c := range cpu {
				a.CPU += (min(d, c.until) - min(d, c.from)) / 2
			}
			return a
		}
	}
	for _, tc := range []struct {
		name     string
		maxSil   time.Duration
		tree     func(time.Duration) Activity
		wantHang time.Duration
	}{
		// The last window that saw the tool ended at 98 s (the one at 100 s
		// saw it gone): the idle timeout runs from there.
		{"a tool that ended", 15 * time.Minute, tree(100 * s), 158 * s},
		// No window sees the agent between 98 s and 156 s: the one before
		// the deadline does, and the silence runs from the end of the last
		// window that sees it (170 s).
		{"work again before the deadline", 15 * time.Minute, tree(100*s, span{150 * s, 170 * s}), 230 * s},
		{"work missed between the windows", 15 * time.Minute, tree(100*s, span{110 * s, 120 * s}), 158 * s},
		{"capped by max_silence from the last byte", 120 * s, tree(100 * s), 120 * s},
		{"no work at all", 15 * time.Minute, tree(0), 60 * s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			th := testThresholds()
			th.ActivityProbe, th.MaxSilence = true, tc.maxSil
			got, r := drive(t, th, started("c", 0), tc.tree, 1000*s)
			if got != tc.wantHang {
				t.Fatalf("hang at %v, want %v; %+v", got, tc.wantHang, r.Evidence)
			}
			if want := tc.wantHang - 60*s; tc.wantHang > 60*s && r.Evidence.Extended != want {
				t.Errorf("extended %v, want %v", r.Evidence.Extended, want)
			}
		})
	}
}
