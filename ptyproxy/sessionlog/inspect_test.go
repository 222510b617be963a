package sessionlog

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestInspectGolden renders the logs in testdata as timelines and compares
// them with the golden files (go test -update rewrites them).
func TestInspectGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"normal", "hang", "corrupt"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl, err := Read(filepath.Join("testdata", name+".jsonl"), 500*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			tl.Format(&b, 500*time.Millisecond, false)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				os.WriteFile(golden, b.Bytes(), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if b.String() != string(want) {
				t.Errorf("timeline differs from %s:\n%s", golden, b.String())
			}
			if _, err := json.Marshal(tl); err != nil {
				t.Errorf("as JSON: %v", err)
			}
		})
	}
}

func TestInspectFacts(t *testing.T) {
	t.Parallel()
	hang, _ := Read("testdata/hang.jsonl", 10*time.Second)
	if hang.SessionID != "hang-0001" || hang.Verdict == nil || hang.Verdict.Reason.Kind != "tool" || len(hang.Calls) != 1 || !hang.Calls[0].Open {
		t.Errorf("hang timeline: %+v", hang)
	}
	if hang.Exit == nil || hang.Exit.Status == nil || *hang.Exit.Status != 124 || len(hang.Kills) < 2 {
		t.Errorf("hang exit %+v kills %+v", hang.Exit, hang.Kills)
	}
	normal, _ := Read("testdata/normal.jsonl", 10*time.Second)
	if normal.Stopped != nil || normal.Exit == nil || *normal.Exit.Status != 0 || len(normal.Calls) != 4 || normal.Model == "" {
		t.Errorf("normal timeline: %+v", normal)
	}
	corrupt, _ := Read("testdata/corrupt.jsonl", 10*time.Second)
	if corrupt.Stopped == nil || corrupt.Stopped.Line != 26 || !strings.Contains(corrupt.Stopped.Error, "cut short") || len(corrupt.Entries) == 0 {
		t.Errorf("corrupt timeline stopped %+v", corrupt.Stopped)
	}
}
