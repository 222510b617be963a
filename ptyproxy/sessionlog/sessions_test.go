package sessionlog

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSessionNeverEndsBeforeItsLastRecord: a log with no exit record ends
// at its file's time, which the kernel keeps on a coarser clock than the
// records': a few ms behind the last record, it made a duration of -1ms.
func TestSessionNeverEndsBeforeItsLastRecord(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cursor-wrap-1-s.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, start, start.Add(-5*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	s := Summary{Path: path, Start: start, End: start.Add(40 * time.Millisecond)}
	if got, _ := attemptOf(s, false, time.Now()); got.DurationMS != 40 {
		t.Errorf("duration %d ms, want 40 (the last record's)", got.DurationMS)
	}
}
