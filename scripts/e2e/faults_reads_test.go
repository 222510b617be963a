package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestFaultListsReadNoWholeLog (33.4): sessions parsed every log whole:
// sessions --limit 1 over one log of 120 MB took 4-13 s and 50-140 MB for
// one line. The lists of runs (sessions, sessions --hung, which inspect
// --last-hang and the MCP server's agent_sessions share, and report) read
// a log's ends only: a log of 64 MB costs them what one of 2 KB does.
func TestFaultListsReadNoWholeLog(t *testing.T) {
	t.Parallel()
	small, large := t.TempDir(), t.TempDir()
	start := time.Now().Add(-time.Hour)
	writeSessionLog(t, small, start, "s-small")
	// A run of 64 MB of output that hung.
	at := start.UTC().Format(time.RFC3339Nano)
	var log bytes.Buffer
	fmt.Fprintf(&log, `{"time":%q,"level":"INFO","msg":"command","attempt":1,"agent":"cursor","path":"/usr/bin/cursor-agent","argv":["-p","large prompt"],"env":[],"watch":"events"}`+"\n", at)
	fmt.Fprintf(&log, `{"time":%q,"level":"DEBUG","msg":"event","recv_ts":%d,"type":"system","subtype":"init","raw":%s}`+"\n", at, start.UnixMilli(), initFor("s-large"))
	event := fmt.Sprintf(`{"time":%q,"level":"DEBUG","msg":"event","recv_ts":%d,"type":"assistant","raw":{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Reading the failing test and the module it covers, one function at a time."}]},"session_id":"s-large"}}`+"\n", at, start.UnixMilli())
	for log.Len() < 64<<20 {
		log.WriteString(event)
	}
	end := start.Add(time.Minute).UTC().Format(time.RFC3339Nano)
	fmt.Fprintf(&log, `{"time":%q,"level":"ERROR","msg":"hang_detected","reason":{"kind":"idle","idle_silence_ms":60000}}`+"\n", end)
	fmt.Fprintf(&log, `{"time":%q,"level":"INFO","msg":"exit","cause":"hung","status":124,"duration_ms":60000,"lines":1,"tool_calls":0,"longest_silence_ms":60000}`+"\n", end)
	if err := os.WriteFile(filepath.Join(large, fmt.Sprintf("cursor-wrap-%d-s-large.jsonl", start.UnixMilli())), log.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cost := func(dir string, args ...string) (time.Duration, int64, []byte) {
		t.Helper()
		cmd := exec.Command(wrapperBin, append(args, "--log-dir", dir)...)
		cmd.Env = testEnv()
		var out bytes.Buffer
		cmd.Stdout = &out
		rss, err := peakRSS(t, cmd)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rss, out.Bytes()
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "--limit", "1"}, "hung (idle)"},
		{[]string{"sessions", "--hung", "--json"}, `"outcome": "hung (idle)"`},
		{[]string{"report", "--json"}, `"runs": 1`},
	} {
		cpuSmall, rssSmall, _ := cost(small, tc.args...)
		cpu, rss, out := cost(large, tc.args...)
		t.Logf("%q: %v and %d MiB for a 2 KB log, %v and %d MiB for a 64 MB one", tc.args, cpuSmall, rssSmall>>20, cpu, rss>>20)
		if !bytes.Contains(out, []byte(tc.want)) || !bytes.Contains(out, []byte("s-large")) && tc.args[0] == "sessions" {
			t.Errorf("%q:\n%s", tc.args, out)
		}
		if cpu > cpuSmall+300*time.Millisecond || rss > rssSmall+16<<20 {
			t.Errorf("%q over a 64 MB log took %v of CPU and %d MiB, over a 2 KB one %v and %d MiB", tc.args, cpu, rss>>20, cpuSmall, rssSmall>>20)
		}
	}
}
