package htmltimeline

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/ptyproxy/sessionlog/timeline"
	"cursor-wrap/watchdog"
)

func ms(d time.Duration) timeline.Millis { return timeline.Millis(d) }

func draw(t *testing.T, gap time.Duration, run ...*timeline.Timeline) string {
	t.Helper()
	page, err := Page(run, gap)
	if err != nil {
		t.Fatal(err)
	}
	return page.String()
}

// TestHostileStaysText puts markup wherever the log's words reach the page
// (ids, paths, kinds, commands, notes, the reason, the answer): none of it
// may become markup. The browser test shows the same in chromium.
func TestHostileStaysText(t *testing.T) {
	evil := `</script><script>alert(1)</script><img src=x onerror=alert(2)>" onmouseover="alert(3)` + "\u202e\u2066"
	code := 0
	tl := &timeline.Timeline{
		Path: "/logs/" + evil, SessionID: evil, Agent: evil, Model: evil, Start: time.Unix(1700000000, 0),
		Calls:   []timeline.Call{{ID: "c1", Kind: evil, Command: evil, Start: ms(time.Second), Duration: ms(5 * time.Second)}},
		Entries: []timeline.Entry{{At: ms(time.Second), What: evil}, {At: ms(30 * time.Second), Gap: ms(29 * time.Second), What: evil}},
		Notes:   []timeline.Entry{{At: ms(2 * time.Second), What: "warning", Detail: evil}, {At: ms(3 * time.Second), What: "evidence", Detail: evil}},
		Verdict: &timeline.Verdict{At: ms(40 * time.Second), Kind: "hang_detected", Reason: watchdog.Reason{Kind: evil,
			OpenCalls: []watchdog.OpenCall{{ID: "c1", Kind: evil, Command: evil}}}},
		Kills:   []timeline.Entry{{At: ms(41 * time.Second), What: evil, Detail: evil}},
		Exit:    &timeline.Ended{At: ms(42 * time.Second), AgentCode: &code, Signal: evil, Cause: evil, Status: &code},
		Answer:  evil,
		Stopped: &timeline.StoppedAt{Line: 3, Error: evil},
	}
	page := draw(t, 10*time.Second, tl)
	for _, bad := range []string{"<script", "<img", `" onmouseover`, "\u202e", "\u2066"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the markup is not shown as text:\n%s", page)
	}
}

var barCalls = regexp.MustCompile(`<rect class="bar k\d" data-calls="(\d+)"`)

// countBars counts the bars of a page and the calls they stand for.
func countBars(page string) (n, calls int) {
	for _, m := range barCalls.FindAllStringSubmatch(page, -1) {
		c, _ := strconv.Atoi(m[1])
		n, calls = n+1, calls+c
	}
	return n, calls
}

// TestManyCalls draws 5,000 calls over three hours: the calls narrower than
// a pixel merge, the bars still stand for every call, the notes table is
// cut, and the page stays small.
func TestManyCalls(t *testing.T) {
	tl := &timeline.Timeline{Start: time.Unix(1700000000, 0), Path: "long.jsonl"}
	kinds := []string{"shellToolCall", "readToolCall", "editToolCall"}
	for i := range 5000 {
		took := time.Second + time.Duration(i%7)*100*time.Millisecond
		if i%500 == 0 {
			took = 4 * time.Minute
		}
		tl.Calls = append(tl.Calls, timeline.Call{ID: fmt.Sprint(i), Kind: kinds[i%5%3], Command: fmt.Sprintf("step %d", i),
			Start: ms(time.Duration(i) * 2 * time.Second), Duration: ms(took), Declared: ms(10 * time.Minute)})
		tl.Entries = append(tl.Entries, timeline.Entry{At: ms(time.Duration(i) * 2 * time.Second)})
		if i%33 == 0 {
			tl.Notes = append(tl.Notes, timeline.Entry{At: ms(time.Duration(i) * 2 * time.Second), What: "warning", Detail: "hang imminent"})
		}
	}
	page := draw(t, 10*time.Second, tl)
	n, calls := countBars(page)
	if calls != 5000 || n >= 2000 || n < 10 {
		t.Errorf("%d bars stand for %d calls; want 5000 calls in far fewer bars", n, calls)
	}
	if !strings.Contains(page, "and 52 more notes") {
		t.Errorf("the 152 notes are not cut at 100")
	}
	if len(page) > 512<<10 {
		t.Errorf("the page is %d KB", len(page)>>10)
	}
	t.Logf("5000 calls: %d bars, %d KB", n, len(page)>>10)
}

// TestSilences tells the three kinds of silence apart: one while a tool
// ran, one the model connection excused, one nothing excused.
func TestSilences(t *testing.T) {
	s := func(d time.Duration) timeline.Millis { return ms(d * time.Second) }
	tl := &timeline.Timeline{Start: time.Unix(1700000000, 0),
		Entries: []timeline.Entry{{At: s(1)}, {At: s(30), Gap: s(29)}, {At: s(60), Gap: s(30)}, {At: s(61)}, {At: s(100), Gap: s(39)}},
		Calls:   []timeline.Call{{ID: "a", Kind: "shellToolCall", Command: "make", Start: s(1), Duration: s(29)}},
		Notes:   []timeline.Entry{{At: s(50), What: "evidence", Detail: "the connection to 1.2.3.4:443"}},
	}
	page := draw(t, 10*time.Second, tl)
	for class, want := range map[string]int{"excused-tool": 1, "excused-evidence": 1, "silence": 1} {
		if got := strings.Count(page, `<rect class="`+class+`"`); got != want {
			t.Errorf("%d silences of class %s, want %d", got, class, want)
		}
	}
}

func TestTicks(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "+0", 10 * time.Second: "+10s", 2 * time.Minute: "+2m",
		90 * time.Minute: "+1h30m", 3 * time.Hour: "+3h", 200 * time.Millisecond: "+200ms"} {
		if got := "+" + short(d); got != want {
			t.Errorf("short(%s) = %q, want %q", d, got, want)
		}
	}
	if n := len(ticks(scale{total: 3 * time.Hour})); n < 4 || n > 11 {
		t.Errorf("%d ticks on a 3h axis", n)
	}
}

// TestTokens draws what the run spent, the second attempt's total added to
// the first's, the token budget a run passed, and no tokens lane for a run
// whose agent reported nothing.
func TestTokens(t *testing.T) {
	start := time.Unix(1700000000, 0)
	used := func(at time.Duration, in, out int64) timeline.UsageAt {
		return timeline.UsageAt{At: ms(at), UsageRecord: sessionlog.UsageRecord{InputTokens: in, OutputTokens: out}}
	}
	first := &timeline.Timeline{Start: start, Attempt: 1, Usage: []timeline.UsageAt{used(time.Second, 100, 10), used(2*time.Second, 300, 40)}}
	second := &timeline.Timeline{Start: start.Add(5 * time.Second), Attempt: 2, Usage: []timeline.UsageAt{used(time.Second, 50, 5)}}
	page := draw(t, time.Minute, first, second)
	if !strings.Contains(page, `id="tokens"`) || !strings.Contains(page, "the run&#39;s total: tokens in 350, out 45") {
		t.Errorf("no tokens lane, or not the run's total:\n%s", page)
	}
	if strings.Contains(page, `class="budget"`) {
		t.Errorf("a budget line for a run that was not stopped by one")
	}
	second.Verdict = &timeline.Verdict{At: ms(time.Second), Kind: "hang_detected",
		Reason: watchdog.Reason{Kind: watchdog.KindBudget, Budget: watchdog.BudgetTokens, Limit: 300, Total: 395}}
	if page := draw(t, time.Minute, first, second); !strings.Contains(page, `class="budget"`) || !strings.Contains(page, "max_tokens 300") {
		t.Errorf("no max_tokens line for a run its token budget stopped")
	}
	if page := draw(t, time.Minute, &timeline.Timeline{Start: start}); strings.Contains(page, `id="tokens"`) {
		t.Errorf("a tokens lane for a run that reported no usage")
	}
}

// FuzzPageMarkup writes whatever text the fuzzer finds wherever the log's
// words reach the page: the page's markup (every < and >) stays that of
// the same run with plain words, so nothing from the log became markup.
func FuzzPageMarkup(f *testing.F) {
	f.Add("<script>alert(1)</script>", "</script><img src=x onerror=alert(2)>", `" onmouseover="x`)
	f.Add("\u202e<b>", "]]><!--", "<svg><title></title><script>")
	page := func(a, b, c string) string {
		code := 1
		tl := &timeline.Timeline{Path: a, SessionID: b, Agent: c, Start: time.Unix(1700000000, 0),
			Calls:   []timeline.Call{{ID: "1", Kind: a, Command: b, Start: ms(time.Second), Duration: ms(time.Minute)}},
			Entries: []timeline.Entry{{At: ms(time.Second), What: c}, {At: ms(time.Minute), Gap: ms(time.Minute), What: a}},
			Notes:   []timeline.Entry{{At: ms(2 * time.Second), What: "warning", Detail: c}},
			Verdict: &timeline.Verdict{At: ms(2 * time.Minute), Reason: watchdog.Reason{Kind: a, Question: b}},
			Kills:   []timeline.Entry{{At: ms(2 * time.Minute), What: b, Detail: c}},
			Exit:    &timeline.Ended{At: ms(2 * time.Minute), AgentCode: &code, Cause: a, Status: &code},
			Answer:  c,
		}
		page, err := Page([]*timeline.Timeline{tl}, 10*time.Second)
		if err != nil {
			f.Fatal(err)
		}
		return page.String()
	}
	markup := func(s string) int { return strings.Count(s, "<") + strings.Count(s, ">") }
	plain := markup(page("x", "x", "x"))
	f.Fuzz(func(t *testing.T, a, b, c string) {
		// Words that show as nothing would drop their element.
		if got := markup(page("x"+a+"x", "x"+b+"x", "x"+c+"x")); got != plain {
			t.Errorf("%d < and > on the page, %d with plain words", got, plain)
		}
	})
}

// TestKindClass gives each kind one colour whichever agent named it and
// whatever else is on the page: the family its words name.
func TestKindClass(t *testing.T) {
	for want, kinds := range map[string][]string{
		"k0": {"shellToolCall", "Bash", "command_execution", "run_shell_command", "bash"},
		"k1": {"editToolCall", "writeToolCall", "deleteToolCall", "Edit", "MultiEdit", "Write", "file_change", "replace", "write_file", "patch"},
		"k2": {"readToolCall", "Read", "read_file", "read_many_files"},
		"k3": {"grepToolCall", "globToolCall", "lsToolCall", "Grep", "LS", "search_file_content", "list_directory"},
		"k4": {"webFetchToolCall", "webSearchToolCall", "WebFetch", "google_web_search", "web_search", "webfetch"},
		"k5": {"mcpToolCall", "mcp__github__create_issue", "mcp_tool_call"},
		"k6": {"Task", "task"},
		"k7": {"updateTodosToolCall", "TodoWrite", "todo_list", "todowrite"},
		"k9": {"save_memory", "", "tools"},
	} {
		for _, k := range kinds {
			if got := kindClass(k); got != want {
				t.Errorf("kindClass(%q) = %s, want %s", k, got, want)
			}
		}
	}
}

// TestStopLabelled draws a Ctrl-Z stop (SIGSTOP, then SIGCONT) as one
// labelled stretch, not as two kills; a later SIGCONT of the kill stays a
// kill.
func TestStopLabelled(t *testing.T) {
	s := func(d time.Duration) timeline.Millis { return ms(d * time.Second) }
	tl := &timeline.Timeline{Start: time.Unix(1700000000, 0), Prompt: "fix the\nflaky test",
		Entries: []timeline.Entry{{At: s(1)}, {At: s(60)}},
		Kills: []timeline.Entry{{At: s(10), What: "SIGSTOP", Detail: "group 7"}, {At: s(40), What: "SIGCONT", Detail: "group 7"},
			{At: s(70), What: "SIGCONT", Detail: "group 7"}, {At: s(70), What: "SIGTERM", Detail: "group 7"}},
	}
	page := draw(t, time.Minute, tl)
	if n := strings.Count(page, `<rect class="stopped"`); n != 1 || !strings.Contains(page, ">stopped (Ctrl-Z)</text>") {
		t.Errorf("%d stops drawn, or not labelled", n)
	}
	if !strings.Contains(page, "continued at &#43;0:00:40 (30s)") {
		t.Errorf("the stop does not say when it ended")
	}
	if n := strings.Count(page, `<line class="kill"`); n != 2 {
		t.Errorf("%d kill lines, want the kill's SIGCONT and SIGTERM", n)
	}
	if !strings.Contains(page, `<h1 id="prompt">fix the</h1>`) {
		t.Errorf("the prompt's first line does not head the page")
	}
}
