package watchdog

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"cursor-wrap/stream"
)

// TestOldestAgreesWithSorting: the few longest-running calls walked off the
// starts heap are those a sort of every open call puts first, through
// opens and closes in any order, with many calls sharing a start (a batch
// of output has one time).
func TestOldestAgreesWithSorting(t *testing.T) {
	t.Parallel()
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 1))
		o := newOpenCalls()
		th := testThresholds()
		var ids []string
		var sorted []*call // the open calls in order, kept by insertion
		for step := range 1000 {
			now := at(time.Duration(step/(1+rng.IntN(20))) * time.Millisecond)
			if len(ids) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(ids))
				k := o.byID[ids[i]]
				o.close(ids[i])
				ids = slices.Delete(ids, i, i+1)
				j, _ := slices.BinarySearchFunc(sorted, k, byStart)
				sorted = slices.Delete(sorted, j, j+1)
			} else {
				id := fmt.Sprint(rng.IntN(5000))
				if o.open(stream.Call{ID: id}, now, th) {
					ids = append(ids, id)
					j, _ := slices.BinarySearchFunc(sorted, o.byID[id], byStart)
					sorted = slices.Insert(sorted, j, o.byID[id])
				}
			}
			if len(sorted) != len(o.byID) {
				t.Fatalf("seed %d step %d: %d calls open, want %d", seed, step, len(o.byID), len(sorted))
			}
			k := rng.IntN(MaxReasonCalls + 2)
			got, want := o.oldest(k), sorted[:min(k, len(sorted))]
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: oldest(%d) = %v, want %v", seed, step, k, callIDs(got), callIDs(want))
			}
		}
	}
}

func callIDs(cs []*call) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID + "@" + c.start.Sub(t0).String()
	}
	return out
}

// BenchmarkCheckManyOpen is a status snapshot with a hundred thousand calls
// open: the loop takes one every 50ms while output flows.
func BenchmarkCheckManyOpen(b *testing.B) {
	w := New(testThresholds(), t0)
	for i := range 100_000 {
		w.ProcessEvent(started(fmt.Sprint(i), 600_000), at(time.Duration(i/500)*time.Millisecond))
	}
	now := at(time.Second)
	for b.Loop() {
		w.Check(now)
	}
}
