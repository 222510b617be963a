package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"cursor-wrap/scripts/testenv"
)

// The pages are drawn by the built wrapper, as a user's would be.
var wrapperBin, agentBin string

func TestMain(m *testing.M) {
	home, err := testenv.IsolateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "cursor-wrap-browser-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wrapperBin, agentBin = filepath.Join(dir, "cursor-wrap"), filepath.Join(dir, "fakeagent")
	for bin, pkg := range map[string]string{wrapperBin: "cursor-wrap", agentBin: "cursor-wrap/scripts/fakeagent"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.RemoveAll(home)
	os.Exit(code)
}

// wrapper runs the built wrapper with args, the fake agent's steps given
// (for a run with --agent-bin), and returns its exit status.
func wrapper(t *testing.T, steps []string, args ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, wrapperBin, args...)
	b, _ := json.Marshal(steps)
	cmd.Env = append(os.Environ(), "FAKEAGENT_STEPS="+string(b), "CURSOR_WRAP_CONFIG=/nonexistent/config.toml")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatalf("cursor-wrap %q: %v\n%s", args, err, out)
	}
	return 0
}

// The hostile run's agent: markup where its words go, to be shown as text.
const (
	hostileCommand = `<script>window.__pwned=1;alert(1)</script>`
	hostileBreak   = `</script><img src=x onerror="window.__pwned=2">`
	hostileAttr    = `" onmouseover="window.__pwned=3" x="`
	hostileAnswer  = `Done.</script><script>window.__pwned=4</script><img src=x onerror=alert(4)>`
)

func started(id, kind, command string, timeoutMS int) string {
	b, _ := json.Marshal(map[string]any{"type": "tool_call", "subtype": "started", "call_id": id,
		"tool_call": map[string]any{kind: map[string]any{"args": map[string]any{"command": command, "timeout": timeoutMS}}}})
	return string(b)
}

func completed(id string) string {
	return `{"type":"tool_call","subtype":"completed","call_id":"` + id + `","tool_call":{"shellToolCall":{"result":{}}}}`
}

// seen is what a person sees on a page, read in the browser.
type seen struct {
	Bars, Calls, Lanes, Scripts, Imgs, Handlers int
	Pwned                                       bool
	Verdicts                                    []string
	Tokens                                      bool
	Outcome, CallTable, Answer, Title, Text     string
	Spent                                       string
	// Heading is the page's h1 (the prompt); Legends counts the legends;
	// KindColours maps each kind the legend names to its swatch's colour,
	// and BarColours lists the bars' fills; StopLabels are the labels of
	// the stops drawn (Ctrl-Z).
	Heading     string
	Legends     int
	KindColours map[string]string
	BarColours  []string
	StopLabels  []string
	Kills       int
}

const look = `(() => {
	const text = s => { const e = document.querySelector(s); return e ? e.textContent : "" };
	let calls = 0;
	document.querySelectorAll("rect.bar").forEach(b => calls += Number(b.dataset.calls));
	let handlers = 0;
	document.querySelectorAll("*").forEach(e => { for (const a of e.attributes) if (a.name.startsWith("on")) handlers++ });
	return {
		Bars: document.querySelectorAll("rect.bar").length, Calls: calls,
		Lanes: document.querySelectorAll("g.lane").length,
		Scripts: document.querySelectorAll("script").length, Imgs: document.querySelectorAll("img").length,
		Handlers: handlers, Pwned: window.__pwned !== undefined,
		Verdicts: Array.from(document.querySelectorAll(".verdict p, p.verdict"), p => p.textContent),
		Tokens: document.querySelector("#tokens") !== null, Spent: text("#spent"),
		Outcome: text("#outcome"), CallTable: text("#calltable"), Answer: text("#answer"),
		Title: document.title, Text: document.body.innerText,
		Heading: text("h1"), Legends: document.querySelectorAll(".legend").length,
		KindColours: Object.fromEntries(Array.from(document.querySelectorAll(".legend span"), s => {
			const sw = s.querySelector("i.sw");
			return [s.textContent.replace(/ \(\d+\)$/, ""), sw ? getComputedStyle(sw).backgroundColor : ""];
		})),
		BarColours: Array.from(document.querySelectorAll("rect.bar"), b => getComputedStyle(b).fill),
		Kills: document.querySelectorAll("line.kill").length,
		StopLabels: Array.from(document.querySelectorAll("rect.stopped + text.stopped-label"), t => t.textContent),
	};
})()`

// TestTimelineInBrowser draws three runs with the built wrapper and looks
// at each page in one headless chromium: the number of bars, the verdict,
// no script error, and markup from the agent shown as text, never run.
func TestTimelineInBrowser(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		testenv.SkipOutsideCI(t, "no chromium on PATH (Debian: apt-get install chromium): the HTML timeline is checked in a real browser")
	}
	dir := t.TempDir()
	pages := map[string]string{}
	draw := func(name string, args ...string) {
		out := filepath.Join(dir, name+".html")
		if code := wrapper(t, nil, append([]string{"inspect", "--html", "-o", out}, args...)...); code != 0 {
			t.Fatalf("inspect --html %q: exit %d", args, code)
		}
		pages[name] = out
	}

	// A short run that hangs once and, restarted, answers: two lanes.
	shortLogs := filepath.Join(dir, "short")
	marker := filepath.Join(dir, "hung-once")
	code := wrapper(t, []string{
		"line", `{"type":"system","subtype":"init","session_id":"short-1"}`,
		"line", started("a", "readToolCall", "README.md", 0), "sleep", "100ms", "line", completed("a"),
		"line", started("b", "shellToolCall", "go test ./...", 30000), "sleep", "300ms", "line", completed("b"),
		"hang-once", marker,
		"line", `{"type":"result","subtype":"success","result":"all green","session_id":"short-1","usage":{"inputTokens":1200,"outputTokens":340}}`,
	}, "--agent-bin", agentBin, "--log-dir", shortLogs, "--idle-timeout", "1s", "--restarts", "1", "--", "-p", "run the tests")
	if code != 0 {
		t.Fatalf("the short run exited %d", code)
	}
	draw("short", "--gap", "500ms", "--log-dir", shortLogs, "--last")

	long := filepath.Join(dir, "cursor-wrap-1795683600000-long-0001.jsonl")
	writeLongLog(t, long)
	draw("long", long)
	if fi, err := os.Stat(pages["long"]); err == nil {
		t.Logf("the page of %d tool calls over %s: %d KB", longCalls, longDuration, fi.Size()>>10)
		if fi.Size() > 1<<20 {
			t.Errorf("the page of %d calls is %d KB, more than 1 MB", longCalls, fi.Size()>>10)
		}
	}

	hostileLogs := filepath.Join(dir, "hostile")
	wrapper(t, []string{
		"line", `{"type":"system","subtype":"init","session_id":"</script><script>window.__pwned=5</script>"}`,
		"line", started("x1", "shellToolCall", hostileCommand, 0), "sleep", "50ms", "line", completed("x1"),
		"line", started("x2", "shellToolCall", hostileBreak, 0), "sleep", "50ms", "line", completed("x2"),
		"line", started("x3", "<b onclick=alert(6)>ToolCall", hostileAttr+"\u202e evil", 0), "sleep", "50ms", "line", completed("x3"),
		"line", `{"type":"result","subtype":"success","result":` + quote(hostileAnswer) + `}`,
	}, "--agent-bin", agentBin, "--log-dir", hostileLogs, "--", "-p", "<script>alert(7)</script>")
	draw("hostile", "--log-dir", hostileLogs, "--last")

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 900),
		// Its profile's lock socket goes to TMPDIR: the test's, removed after.
		chromedp.Env("HOME="+t.TempDir(), "TMPDIR="+t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// Everything the pages write to the console (a script error, a refused
	// load), up to the line each visit ends with.
	console := make(chan chromedp.ConsoleMessage, 100)
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			console <- m
		}
	}()
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			console <- chromedp.ConsoleMessage{Type: "dialog", Text: ev.Message}
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	visit := func(name string) seen {
		t.Helper()
		step, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(step, chromedp.Navigate("file://"+pages[name])); err != nil {
			t.Fatalf("%s page: %v", name, err)
		}
		s, err := chromedp.Run(step, chromedp.Evaluate[seen](look))
		if err != nil {
			t.Fatalf("%s page: %v", name, err)
		}
		end := "end of the " + name + " page"
		if _, err := chromedp.Run(step, chromedp.Evaluate[bool](`console.debug(`+quote(end)+`), true`)); err != nil {
			t.Fatalf("%s page: %v", name, err)
		}
		for m := range console {
			if m.Text == end {
				break
			}
			t.Errorf("%s page: %s", name, m)
		}
		if s.Scripts != 0 || s.Imgs != 0 || s.Handlers != 0 || s.Pwned {
			t.Errorf("%s page: %d scripts, %d images, %d event handlers, script ran: %v", name, s.Scripts, s.Imgs, s.Handlers, s.Pwned)
		}
		return s
	}

	short := visit("short")
	if short.Lanes != 2 || short.Bars != 4 || short.Calls != 4 {
		t.Errorf("short page: %d lanes, %d bars of %d calls; want 2 lanes, a bar for each of 4 calls", short.Lanes, short.Bars, short.Calls)
	}
	if len(short.Verdicts) != 1 || !strings.HasPrefix(short.Verdicts[0], "attempt 1: hang (idle) at +") {
		t.Errorf("short page: verdicts %q, want attempt 1's idle hang", short.Verdicts)
	}
	if !short.Tokens || short.Spent != "the run's total: tokens in 1,200, out 340" {
		t.Errorf("short page: tokens lane %v, spent %q", short.Tokens, short.Spent)
	}
	if !strings.Contains(short.Outcome, "wrapper status 0") || !strings.Contains(short.CallTable, "go test ./...") {
		t.Errorf("short page: outcome %q, call table %q", short.Outcome, short.CallTable)
	}

	if short.Heading != "run the tests" || short.Legends != 1 {
		t.Errorf("short page: heading %q (want the prompt), %d legends", short.Heading, short.Legends)
	}

	lp := visit("long")
	if lp.Heading != "refactor the ledger" || lp.Legends != 1 {
		t.Errorf("long page: heading %q (want the prompt), %d legends", lp.Heading, lp.Legends)
	}
	if len(lp.StopLabels) != 1 || lp.StopLabels[0] != "stopped (Ctrl-Z)" || lp.Kills != 1 {
		t.Errorf("long page: stops labelled %q, %d kill lines; want the one Ctrl-Z stop labelled, and only the SIGTERM a kill", lp.StopLabels, lp.Kills)
	}
	// One colour per kind on every page: a kind's swatch is the same
	// whatever its rank on the page, and every bar is in a legend's colour.
	for _, kind := range []string{"shellToolCall", "readToolCall"} {
		if c := short.KindColours[kind]; c == "" || c != lp.KindColours[kind] {
			t.Errorf("%s: %q on the short page, %q on the long one", kind, c, lp.KindColours[kind])
		}
	}
	for name, p := range map[string]seen{"short": short, "long": lp} {
		for _, fill := range p.BarColours {
			if !slices.Contains(slices.Collect(maps.Values(p.KindColours)), fill) {
				t.Errorf("%s page: a bar in %s, no kind's colour in the legend %v", name, fill, p.KindColours)
				break
			}
		}
	}
	if lp.Calls != longCalls || lp.Bars >= longCalls/2 || lp.Bars == 0 {
		t.Errorf("long page: %d bars of %d calls; want the %d calls, those under a pixel wide merged", lp.Bars, lp.Calls, longCalls)
	}
	if len(lp.Verdicts) != 1 || !strings.Contains(lp.Verdicts[0], "hang (tool)") || !strings.Contains(lp.Verdicts[0], "make integration") {
		t.Errorf("long page: verdicts %q", lp.Verdicts)
	}
	if !lp.Tokens || !strings.Contains(lp.Spent, "tokens in 1,485,000, out 396,000") {
		t.Errorf("long page: tokens lane %v, spent %q", lp.Tokens, lp.Spent)
	}
	for _, want := range []string{"5000 tool calls", "the 50 longest of 5000", "wrapper status 124 (hung)"} {
		if !strings.Contains(lp.Text, want) {
			t.Errorf("long page does not say %q", want)
		}
	}
	t.Logf("long page: %d bars for %d calls", lp.Bars, lp.Calls)

	h := visit("hostile")
	for _, want := range []string{hostileCommand, hostileBreak, strings.TrimSpace(hostileAttr)} {
		if !strings.Contains(h.CallTable, want) {
			t.Errorf("hostile page: the call table does not show %q as text: %q", want, h.CallTable)
		}
	}
	if !strings.Contains(h.Answer, hostileAnswer) || !strings.Contains(h.Title, "</script>") {
		t.Errorf("hostile page: answer %q, title %q", h.Answer, h.Title)
	}
	if h.Heading != "<script>alert(7)</script>" {
		t.Errorf("hostile page: heading %q, want the prompt as text", h.Heading)
	}
	if h.Tokens {
		t.Errorf("hostile page: a tokens lane for a run that reported no usage")
	}
	if strings.ContainsRune(h.Text, '\u202e') {
		t.Errorf("hostile page shows a bidi control")
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
