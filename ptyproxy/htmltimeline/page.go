// Package htmltimeline draws a run's session logs as one self-contained HTML
// page, for inspect --html: a time axis with each tool call as a bar by
// kind and its deadline marked, silences shaded (those excused by evidence
// told apart), warnings, the verdict and the kills, one lane per attempt.
package htmltimeline

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/ptyproxy/sessionlog/timeline"
	"cursor-wrap/words"
)

// The page is HTML and SVG, with no script at all, and its policy forbids
// scripts and every fetch: whatever the log holds (it holds what the agent
// wrote) can only ever be text, which html/template escapes by context.
//
//go:embed page.html.tmpl
var pageText string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"n":     func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"add":   func(a, b float64) float64 { return a + b },
	"width": func(x0, x1 float64) float64 { return max(x1-x0, 0.5) },
}).Parse(pageText))

// palette is the number of colours for tool kinds (classes k0…).
const palette = 10

type legendItem struct {
	Class, Label string
	Count        int
}

// A row of the page's tool-call table.
type callRow struct {
	Attempt                          int
	At, Kind, Command, Ran, Declared string
	Open                             bool
}

type noteRow struct {
	Attempt          int
	At, What, Detail string
}

type page struct {
	// Heading is the run's prompt, its first line (as the log holds it:
	// masked), else the title.
	Heading, Title, Session  string
	Agent, Started, Duration string
	Logs                     []string
	Width, Height            float64
	Axis                     []mark
	AxisY                    float64
	Lanes                    []lane
	Legend                   []legendItem
	Calls                    int
	Tokens                   *tokenLane
	Spent                    string
	Listed                   []callRow
	ListedAll                bool
	Notes                    []noteRow
	NotesLeft                int // past maxNotes, not listed
	Verdicts                 []string
	Outcome                  string
	Answer                   string
	Stopped                  []string
}

// Page is the page for a run's attempts, first attempt first (see
// timeline's Attempts), masked: the logs it is drawn from were masked as
// they were written, and what is known of a secret's shape is masked
// again. Silences at least gap long are shaded.
func Page(run []*timeline.Timeline, gap time.Duration) (redact.Masked, error) {
	var b bytes.Buffer
	err := write(&b, run, gap)
	return (*redact.Redactor)(nil).Mask(b.Bytes()), err
}

// write writes the page for a run's attempts.
func write(w io.Writer, run []*timeline.Timeline, gap time.Duration) error {
	if len(run) == 0 {
		return fmt.Errorf("no attempt to draw")
	}
	first, last := run[0], run[len(run)-1]
	s := scale{origin: first.Start, total: at(last, end(last)).Sub(first.Start)}
	if s.total <= 0 {
		s.total = time.Millisecond
	}
	class, legend := classes(run)
	p := page{
		Session:  orDash(words.Cut(words.Display(last.SessionID), 80)),
		Agent:    words.Display(joinNonEmpty(last.Agent, last.Model)),
		Started:  first.Start.UTC().Format("2006-01-02 15:04:05.000 MST"),
		Duration: words.Duration(s.total),
		Axis:     ticks(s),
		AxisY:    24,
		Legend:   legend,
		Width:    labelWidth + plotWidth + 30,
	}
	p.Title = "cursor-wrap session " + p.Session
	p.Heading = cmp.Or(words.FirstLine(first.Prompt, maxPrompt), p.Title)
	y := 34.0
	var calls []callRow
	for i, t := range run {
		bs, rows := bars(t, s, class)
		l := lane{Y: y, X0: s.x(t.Start), X1: s.x(at(t, end(t))), Bars: bs, Rows: rows, Silences: silences(t, s, gap)}
		l.Title = fmt.Sprintf("attempt %d", max(t.Attempt, i+1))
		l.Marks = marks(t, s)
		l.Stops, _ = stops(t, s)
		if v := t.Verdict; v != nil {
			l.Verdict = v.Word()
			p.Verdicts = append(p.Verdicts, fmt.Sprintf("%s: %s at %s: %s", l.Title, v.Word(), clock(at(t, v.At), s), words.Display(v.Reason.Describe())))
		}
		l.place(y)
		y += l.Height + 10
		p.Lanes = append(p.Lanes, l)
		p.Calls += len(t.Calls)
		p.Logs = append(p.Logs, words.Display(t.Path))
		for _, c := range t.Calls {
			calls = append(calls, callRow{Attempt: max(t.Attempt, i+1), At: clock(at(t, c.Start), s), Kind: words.Cut(words.Display(c.Kind), 40),
				Command: words.Cut(words.Display(c.Command), maxText), Ran: words.Duration(time.Duration(c.Duration)),
				Declared: declared(c), Open: c.Open})
		}
		for _, n := range t.Notes {
			if len(p.Notes) == maxNotes {
				p.NotesLeft++
				continue
			}
			p.Notes = append(p.Notes, noteRow{Attempt: max(t.Attempt, i+1), At: clock(at(t, n.At), s), What: words.Display(n.What), Detail: words.Cut(words.Display(n.Detail), maxText)})
		}
		if st := t.Stopped; st != nil {
			p.Stopped = append(p.Stopped, fmt.Sprintf("%s stops at line %d: %s", words.Display(t.Path), st.Line, words.Display(st.Error)))
		}
	}
	if p.Tokens = tokens(run, s, y); p.Tokens != nil {
		y += p.Tokens.Height + 10
		p.Spent = p.Tokens.Total
	}
	p.Height = y
	p.Listed, p.ListedAll = longest(calls, run)
	if e := last.Exit; e != nil {
		p.Outcome = exitWords(e)
	}
	p.Answer = answer(last.Answer)
	return pageTemplate.Execute(w, p)
}

// marks are an attempt's instants: its notes (warnings among them), the
// verdict, the kills and the exit.
func marks(t *timeline.Timeline, s scale) []mark {
	var out []mark
	for _, n := range t.Notes {
		cl := "note"
		if n.What == "warning" || n.What == "agent_error" {
			cl = "warn"
		}
		if n.What == "evidence" || n.What == "restart" {
			continue // shown by the silence it excused, and the lane's title
		}
		out = append(out, mark{X: s.x(at(t, n.At)), Class: cl, Title: clock(at(t, n.At), s) + " " + words.Display(n.What) + ": " + words.Cut(words.Display(n.Detail), maxText)})
	}
	if v := t.Verdict; v != nil {
		x := s.x(at(t, v.At))
		out = append(out, mark{X: x, Left: x > labelWidth+plotWidth/2, Class: "verdict", Label: v.Word(), Title: clock(at(t, v.At), s) + " " + v.Word() + ": " + words.Cut(words.Display(v.Reason.Describe()), maxText)})
	}
	_, stopSignals := stops(t, s)
	for i, k := range t.Kills {
		if stopSignals[i] {
			continue // drawn as the stop they make
		}
		out = append(out, mark{X: s.x(at(t, k.At)), Class: "kill", Title: clock(at(t, k.At), s) + " " + words.Display(k.What) + " to " + words.Display(k.Detail)})
	}
	if e := t.Exit; e != nil {
		out = append(out, mark{X: s.x(at(t, e.At)), Class: "exit", Title: clock(at(t, e.At), s) + " " + exitWords(e)})
	}
	return out
}

// A stop is a stretch the agent's tree was stopped with the user's job
// (Ctrl-Z, or a background job that touched the terminal): the wrapper
// sent it SIGSTOP, and SIGCONT when the job went on.
type stop struct {
	X0, X1, Y, H float64
	Title        string
}

// stops finds an attempt's stops, and which of its kills are the signals
// that made them (so they are not drawn as kills). A stop the log does
// not see end runs to the end of the attempt.
func stops(t *timeline.Timeline, s scale) ([]stop, map[int]bool) {
	var out []stop
	signals := map[int]bool{}
	for i := 0; i < len(t.Kills); i++ {
		if t.Kills[i].What != "SIGSTOP" {
			continue
		}
		signals[i] = true
		from, till, ended := t.Kills[i].At, end(t), false
		for j := i + 1; j < len(t.Kills); j++ {
			if t.Kills[j].What == "SIGCONT" {
				signals[j], till, ended, i = true, t.Kills[j].At, true, j
				break
			}
		}
		title := "stopped with your job (Ctrl-Z) at " + clock(at(t, from), s)
		if ended {
			title += ", continued at " + clock(at(t, till), s) + " (" + words.Duration(time.Duration(till-from)) + "): no silence to the watchdog"
		} else {
			title += ", not continued before the log ends"
		}
		out = append(out, stop{X0: s.x(at(t, from)), X1: s.x(at(t, till)), Title: title})
	}
	return out, signals
}

// answer shows the agent's answer line by line, each line through
// words.Display, cut at maxAnswer characters.
func answer(s string) string {
	var lines []string
	for l := range strings.Lines(s) {
		lines = append(lines, words.Display(l))
	}
	return words.Cut(strings.TrimSpace(strings.Join(lines, "\n")), maxAnswer)
}

func exitWords(e *timeline.Ended) string {
	s := "no exit status"
	if e.AgentCode != nil {
		s = fmt.Sprintf("agent exited %d", *e.AgentCode)
		if e.Signal != "" {
			s = "agent killed by " + words.Display(e.Signal)
		}
	}
	if e.Status != nil {
		s += fmt.Sprintf("; wrapper status %d (%s)", *e.Status, words.Display(e.Cause))
	}
	return s
}

func declared(c timeline.Call) string {
	if c.Declared == 0 {
		return "-"
	}
	return words.Duration(time.Duration(c.Declared))
}

// longest keeps the table short: every call of a run with few, else the
// longest, in the order they started. It says whether it kept them all.
func longest(calls []callRow, run []*timeline.Timeline) ([]callRow, bool) {
	if len(calls) <= maxListed {
		return calls, true
	}
	type ranked struct {
		i int
		d timeline.Millis
	}
	var all []ranked
	for _, t := range run {
		for _, c := range t.Calls {
			all = append(all, ranked{len(all), c.Duration})
		}
	}
	slices.SortStableFunc(all, func(a, b ranked) int { return cmp.Compare(b.d, a.d) })
	keep := make([]int, 0, maxListed)
	for _, r := range all[:maxListed] {
		keep = append(keep, r.i)
	}
	slices.Sort(keep)
	out := make([]callRow, len(keep))
	for j, i := range keep {
		out[j] = calls[i]
	}
	return out, false
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ", " + b
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
