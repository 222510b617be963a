package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/watchdog"
)

// report is what wait_agent, start_agent and cancel_agent answer, as far
// as these tests read it.
type report struct {
	RunID     string      `json:"run_id"`
	State     string      `json:"state"`
	Phase     string      `json:"phase"`
	SessionID string      `json:"session_id"`
	LogPath   string      `json:"log_path"`
	Since     *news       `json:"since"`
	Code      string      `json:"code"`
	Kind      string      `json:"kind"`
	Message   string      `json:"message"`
	Reason    *sentReason `json:"reason"`
}

// ended reports whether the run has ended.
func (r report) ended() bool {
	return slices.Contains([]string{stateFinished, stateHung, stateFailed, stateCancelled}, r.State)
}

// tool calls a tool with a progress token when token is not "", and
// decodes its structured content into into.
func (h *harness) tool(name, token string, args map[string]any, into any) *mcp.CallToolResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: name, Arguments: args, Meta: maps.Clone(h.meta)}
	if token != "" {
		p.SetProgressToken(token)
	}
	res, err := h.cs.CallTool(ctx, p)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, into); err != nil {
		h.t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	return res
}

// start calls start_agent with the fake agent's steps as the prompt.
func (h *harness) start(args map[string]any) report {
	h.t.Helper()
	var st report
	if res := h.tool("start_agent", "", args, &st); res.IsError || st.RunID == "" {
		h.t.Fatalf("start_agent: %s %+v", text(res, 0), st)
	}
	return st
}

// waitEnd calls wait_agent until the run has ended, and returns its
// answers.
func (h *harness) waitEnd(id string, wait float64) ([]report, *mcp.CallToolResult) {
	h.t.Helper()
	var all []report
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); {
		var r report
		res := h.tool("wait_agent", "", map[string]any{"run_id": id, "wait": wait}, &r)
		all = append(all, r)
		if r.ended() {
			return all, res
		}
	}
	h.t.Fatalf("run %s did not end: %+v", id, all)
	return nil, nil
}

// toolEvents returns the tool call notes the reports hold, as
// "event command".
func toolEvents(reports []report) []string {
	var out []string
	for _, r := range reports {
		if r.Since != nil {
			for _, n := range r.Since.ToolCalls {
				out = append(out, n.Event+" "+n.Command)
			}
		}
	}
	return out
}

// TestStartWaitFinish starts a run in the background, waits for it in
// short steps and gets the same result run_agent gives.
func TestStartWaitFinish(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	st := h.start(map[string]any{"prompt": steps("line", initLine, "line", toolStart, "sleep", "400ms", "line", toolEnd, "sleep", "400ms", "line", answerLine)})
	if !strings.HasPrefix(st.RunID, "run_") || len(st.RunID) < 20 || st.State != stateRunning {
		t.Errorf("start_agent: %+v", st)
	}
	var mid report
	res := h.tool("wait_agent", "tok", map[string]any{"run_id": st.RunID, "wait": 0.3}, &mid)
	if res.IsError || mid.RunID != st.RunID || mid.Since == nil || mid.Phase == "" {
		t.Errorf("first wait: %s %+v", text(res, 0), mid)
	}
	reports, res := h.waitEnd(st.RunID, 0.3)
	reports = append([]report{mid}, reports...)
	last := reports[len(reports)-1]
	if res.IsError || text(res, 0) != "All tests pass." || !strings.Contains(text(res, 1), "session s-1 finished") {
		t.Fatalf("final: %v %q %q", res.IsError, text(res, 0), text(res, 1))
	}
	var got success
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &got)
	if last.State != stateFinished || got.RunID != st.RunID || got.SessionID != "s-1" || got.ToolCalls != 1 || got.LogPath == "" {
		t.Errorf("final structured content %s", b)
	}
	if ev := toolEvents(reports); !slices.Equal(ev, []string{"started npm test", "ended npm test"}) {
		t.Errorf("tool calls reported across the waits: %q", ev)
	}
	if p := h.progressOf("tok"); len(p) == 0 {
		t.Error("no progress during the wait")
	}
	// The result stays for the next wait, without news.
	var again report
	res = h.tool("wait_agent", "", map[string]any{"run_id": st.RunID}, &again)
	if text(res, 0) != "All tests pass." || again.State != stateFinished || len(again.Since.ToolCalls) != 0 {
		t.Errorf("wait after the end: %q %+v", text(res, 0), again)
	}
}

// TestWaitHung: a hang comes back through wait_agent as state hung with
// the structured error; the warning before it ends a wait early.
func TestWaitHung(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.WarnBefore = time.Second })
	st := h.start(map[string]any{"prompt": steps("line", initLine, "hang"), "idle_timeout": "2s"})
	start := time.Now()
	var first report
	res := h.tool("wait_agent", "", map[string]any{"run_id": st.RunID, "wait": 50}, &first)
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the wait took %v: it should end at the warning or the hang", took)
	}
	reports, res := h.waitEnd(st.RunID, 5)
	reports = append([]report{first}, reports...)
	var warned []string
	for _, r := range reports {
		warned = append(warned, r.Since.Warnings...)
	}
	if len(warned) == 0 || !strings.Contains(warned[len(warned)-1], "agent hang imminent") {
		t.Errorf("warnings across the waits: %q", warned)
	}
	last := reports[len(reports)-1]
	if !res.IsError || last.State != stateHung || last.Code != codeIdle || last.Kind != watchdog.KindIdle || last.Reason == nil || last.SessionID != "s-1" {
		t.Errorf("final: %s %+v", text(res, 0), last)
	}
	if !strings.Contains(text(res, 0), `call start_agent (or run_agent) with resume="s-1"`) {
		t.Errorf("text %q", text(res, 0))
	}
}

// TestCancelAgent cancels a running run and a queued one.
func TestCancelAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.MCP.MaxConcurrent = 1 })
	st := h.start(map[string]any{"prompt": steps("line", initLine, "ignore-term", "setsid-child", "hang")})
	queued := h.start(map[string]any{"prompt": steps("line", answerLine)})
	if queued.State != stateQueued || !strings.HasPrefix(queued.Phase, "queued: 1 of 1 agents running") {
		t.Errorf("second start: %+v", queued)
	}
	pid := waitChildren(t, h.logDir, 1)[0]
	var q report
	res := h.tool("cancel_agent", "", map[string]any{"run_id": queued.RunID}, &q)
	if res.IsError || q.State != stateCancelled || !strings.Contains(text(res, 0), "before its agent started") {
		t.Errorf("cancel of the queued run: %q %+v", text(res, 0), q)
	}
	start := time.Now()
	var c report
	res = h.tool("cancel_agent", "", map[string]any{"run_id": st.RunID}, &c)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("cancel took %v", took)
	}
	if res.IsError || c.State != stateCancelled || c.Code != codeCanceled || c.SessionID != "s-1" ||
		!strings.HasPrefix(text(res, 0), "Cancelled run "+st.RunID+": The run was cancelled by cancel_agent") {
		t.Errorf("cancel: %q %+v", text(res, 0), c)
	}
	dead(t, pid)
	var after report
	if res := h.tool("wait_agent", "", map[string]any{"run_id": st.RunID, "wait": 0}, &after); !res.IsError || after.State != stateCancelled {
		t.Errorf("wait after cancel: %+v", after)
	}
	if res := h.tool("cancel_agent", "", map[string]any{"run_id": st.RunID}, &after); res.IsError || !strings.Contains(text(res, 0), "had already ended (cancelled)") {
		t.Errorf("second cancel: %q", text(res, 0))
	}
}

func TestUnknownRunID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	for _, name := range []string{"wait_agent", "cancel_agent"} {
		var f failure
		res := h.tool(name, "", map[string]any{"run_id": "run_nosuchrun"}, &f)
		if !res.IsError || f.Code != codeUnknown || !strings.Contains(text(res, 0), `No run has run_id "run_nosuchrun"`) {
			t.Errorf("%s: %q %+v", name, text(res, 0), f)
		}
	}
	var f failure
	if res := h.tool("wait_agent", "", map[string]any{"run_id": "run_x", "wait": -1}, &f); !res.IsError || f.Code != codeInvalid {
		t.Errorf("negative wait: %+v", f)
	}
	// A wait far over the maximum waits the maximum, and no overflow
	// makes it a wait of none.
	st := h.start(map[string]any{"prompt": steps("line", initLine, "sleep", "1s", "line", answerLine)})
	if reports, res := h.waitEnd(st.RunID, 1e300); len(reports) != 1 || text(res, 0) != "All tests pass." {
		t.Errorf("a wait of 1e300 s: %d answers, %q", len(reports), text(res, 0))
	}
	if res := h.tool("start_agent", "", map[string]any{"prompt": "x", "model": "--yolo"}, &f); !res.IsError || f.Code != codeInvalid {
		t.Errorf("flag-like model: %+v", f)
	}
}

// TestDisconnectKillsBackgroundRuns: background runs belong to the
// server; a client that goes takes them with it.
func TestDisconnectKillsBackgroundRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	for range 2 {
		h.start(map[string]any{"prompt": steps("line", initLine, "setsid-child", "hang")})
	}
	pids := waitChildren(t, h.logDir, 2)
	h.disconnect()
	for _, pid := range pids {
		dead(t, pid)
	}
}

// TestQueueStates starts more runs than max_concurrent: the rest queue,
// agent_sessions shows it, and all finish.
func TestQueueStates(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.MCP.MaxConcurrent = 2 })
	var ids []string
	states := map[string]int{}
	for range 6 {
		// Each run outlasts the starts, however slow a busy machine is.
		st := h.start(map[string]any{"prompt": steps("line", initLine, "sleep", "4s", "line", answerLine)})
		ids = append(ids, st.RunID)
		states[st.State]++
	}
	if states[stateQueued] < 3 {
		t.Errorf("states at start: %v; with 2 slots at least 3 of 6 queue", states)
	}
	var list sessionList
	h.tool("agent_sessions", "", nil, &list)
	listed := map[string]string{}
	for _, ri := range list.Runs {
		listed[ri.RunID] = ri.State
	}
	if len(listed) != 6 || !slices.Contains(slices.Collect(maps.Values(listed)), stateQueued) {
		t.Errorf("agent_sessions runs: %v", listed)
	}
	for _, id := range ids {
		if _, res := h.waitEnd(id, 5); res.IsError || text(res, 0) != "All tests pass." {
			t.Errorf("run %s: %q", id, text(res, 0))
		}
	}
}

// TestRetention: ended runs are kept up to a count and for a time, then
// their ids are unknown.
func TestRetention(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.srv.reg.mu.Lock()
	h.srv.reg.keepEnded = 2
	h.srv.reg.mu.Unlock()
	var ids []string
	for range 4 {
		st := h.start(map[string]any{"prompt": steps("line", answerLine)})
		ids = append(ids, st.RunID)
		h.waitEnd(st.RunID, 5)
	}
	var f failure
	for i, id := range ids {
		res := h.tool("wait_agent", "", map[string]any{"run_id": id, "wait": 0}, &f)
		if kept := i >= 2; res.IsError == kept {
			t.Errorf("run %d of 4: error %v (%q); the last 2 should be kept", i, res.IsError, text(res, 0))
		}
	}
	h.srv.reg.mu.Lock()
	h.srv.reg.now = func() time.Time { return time.Now().Add(keepFor) }
	h.srv.reg.mu.Unlock()
	if res := h.tool("wait_agent", "", map[string]any{"run_id": ids[3], "wait": 0}, &f); !res.IsError || f.Code != codeUnknown {
		t.Errorf("a result older than %v: %+v", keepFor, f)
	}
}

// TestRetentionMemory ends many runs with large results and checks that
// the registry's memory stays bounded. Not parallel: it reads the heap.
func TestRetentionMemory(t *testing.T) {
	s := &Server{reg: newRegistry()}
	const runs, size = 3000, 64 << 10
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := range runs {
		r := &run{s: s, id: fmt.Sprint("run_", i), tool: toolStartAgent, arrived: time.Now(), changed: make(chan struct{})}
		if !s.reg.add(r) {
			t.Fatalf("run %d refused", i)
		}
		r.final = &final{state: stateFinished, structured: seal(nil, strings.Repeat("x", size))}
		r.endedAt = time.Now()
		s.reg.ended(r)
	}
	grew := int64(heap()) - int64(before)
	if n := len(s.reg.list()); n != keepEnded {
		t.Errorf("%d runs kept, want %d", n, keepEnded)
	}
	if limit := int64(2 * keepEnded * size); grew > limit {
		t.Errorf("the heap grew by %d bytes after %d runs of %d bytes; at most %d expected", grew, runs, size, limit)
	}
	t.Logf("%d runs of %d KiB: heap grew %d KiB", runs, size>>10, grew>>10)
}

// TestLiveBound refuses a run beyond maxLive queued or running.
func TestLiveBound(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.MCP.MaxConcurrent = 1 })
	h.srv.reg.mu.Lock()
	h.srv.reg.maxLive = 2
	h.srv.reg.mu.Unlock()
	for range 2 {
		h.start(map[string]any{"prompt": steps("line", initLine, "hang")})
	}
	var f failure
	if res := h.tool("start_agent", "", map[string]any{"prompt": steps("line", answerLine)}, &f); !res.IsError || f.Code != codeBusy {
		t.Errorf("a third run: %+v", f)
	}
}

// TestRunAgentIsARun: run_agent's run has a run_id, shows in
// agent_sessions while it runs, and is not kept once its call has the
// result.
func TestRunAgentIsARun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	done := make(chan success, 1)
	go func() {
		var got success
		if _, err := h.try("", map[string]any{"prompt": steps("line", initLine, "sleep", "1s", "line", answerLine)}, &got); err != nil {
			t.Error(err)
		}
		done <- got
	}()
	var list sessionList
	for end := time.Now().Add(15 * time.Second); len(list.Runs) == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		h.tool("agent_sessions", "", nil, &list)
	}
	if len(list.Runs) != 1 || list.Runs[0].Tool != "run_agent" {
		t.Fatalf("runs %+v", list.Runs)
	}
	got := <-done
	if got.RunID != list.Runs[0].RunID || got.State != stateFinished {
		t.Errorf("run_agent's result %+v", got)
	}
	var f failure
	if res := h.tool("wait_agent", "", map[string]any{"run_id": got.RunID, "wait": 0}, &f); !res.IsError || f.Code != codeUnknown {
		t.Errorf("run_agent's run is kept after its call: %+v", f)
	}
}

// TestConcurrentWaits: two waits on one run both end with it.
func TestConcurrentWaits(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	st := h.start(map[string]any{"prompt": steps("line", initLine, "sleep", "500ms", "line", answerLine)})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if _, res := h.waitEnd(st.RunID, 10); text(res, 0) != "All tests pass." {
				t.Errorf("wait: %q", text(res, 0))
			}
		})
	}
	wg.Wait()
}
