package e2e

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestAnswerKeptWhole: an answer longer than a line's old 1 MiB keep is
// kept whole (it was lost: "the agent finished without a final message"),
// and one longer than stream.MaxAnswer (4 MiB) is cut with a marker that
// says how much was dropped, in the wrapper's summary and through the MCP
// server.
func TestAnswerKeptWhole(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, nil, nil, "--", "line", initLine, "answer", "1200000")
	if r.code != 0 || !strings.Contains(string(r.stderr), `answer "all is well. all is well.`) {
		t.Errorf("a 1.2 MB answer: exit %d; stderr %s", r.code, r.stderr)
	}

	c := serve(t, mcpConfig(t), steps("line", initLine, "answer", "1200000"))
	res := c.tool("run_agent", "", map[string]any{"prompt": "write a lot"})
	if text := res.text(); res.IsError || !strings.HasPrefix(text, "all is well.") || !strings.Contains(text, "[cursor-wrap: the answer was 1200000 bytes;") {
		t.Errorf("run_agent with a 1.2 MB answer: %.300q", text)
	}

	c = serve(t, mcpConfig(t), steps("line", initLine, "answer", "6000000"))
	res = c.tool("run_agent", "", map[string]any{"prompt": "write too much"})
	if text := res.text(); res.IsError || !strings.HasPrefix(text, "all is well.") || !strings.Contains(text, "[cursor-wrap: the answer was 4194") {
		t.Errorf("run_agent with a 6 MB answer: %.300q", text)
	}
}

// TestLongStreamFlatMemory: a Gemini run of 400,000 answer deltas (100 MB of
// answer) keeps the wrapper's memory flat: every delta used to be appended to
// the answer it keeps (472 MiB peak). Flat means the peak does not grow with
// the stream: it is compared with the same run of 100,000 deltas (already
// past the 4 MiB answer bound), so that the race detector's and the
// machine's overheads cancel out.
func TestLongStreamFlatMemory(t *testing.T) {
	t.Parallel()
	delta := fmt.Sprintf(`{"type":"message","role":"assistant","content":"%s\n","delta":true}`, strings.Repeat("word ", 50))
	peak := func(deltas int) int64 {
		agent := steps("line", `{"type":"init","session_id":"g-1","model":"gemini-2.5-flash"}`, "repeat", fmt.Sprint(deltas), delta,
			"line", `{"type":"result","status":"success","stats":{}}`)
		cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", t.TempDir(), "--agent", "gemini", "--", "-p", "write at length")
		cmd.Env, cmd.Stdout = append(testEnv(), agent), io.Discard
		rss, err := peakRSS(t, cmd)
		if err != nil {
			t.Fatalf("%d deltas: %v", deltas, err)
		}
		return rss
	}
	short, long := peak(100_000), peak(400_000)
	t.Logf("peak RSS: %d MiB for 100,000 deltas, %d MiB for 400,000", short>>20, long>>20)
	// Growing, 300,000 more deltas would add 75 MB of answer.
	if long > short+16<<20 {
		t.Errorf("peak RSS grew by %d MiB from 100,000 to 400,000 deltas, want at most 16 MiB", (long-short)>>20)
	}
}
