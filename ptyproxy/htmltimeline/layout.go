package htmltimeline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/sessionlog/timeline"
	"cursor-wrap/words"
)

// The drawing's geometry, in SVG user units (a pixel at the page's natural
// width): a column of lane labels, then the time axis.
const (
	labelWidth = 170.0
	plotWidth  = 1000.0
	rowHeight  = 12.0
	rowGap     = 3.0
	maxRows    = 12 // rows of bars in a lane; calls beyond share the least busy
	maxListed  = 50 // calls in the table; more show the longest
	maxNotes   = 100
	maxAnswer  = 4000
	maxText    = 300
	maxPrompt  = 200 // the heading: the prompt's first line
)

// A bar is a tool call, or the calls too short to see that fall in a run
// of neighbouring pixel columns, drawn as one.
type bar struct {
	X0, X1   float64 // plot units
	Row      int
	Y        float64
	Class    string
	Calls    int
	Title    string
	Deadline float64 // plot units; 0 for none within the axis
	Open     bool
}

// A silence is a stretch without output, shaded behind the bars.
type silence struct {
	X0, X1, Y, H float64
	Class        string // silence, excused-tool, excused-evidence
	Title        string
}

// A mark is an instant: a note, the verdict, a kill, the exit.
type mark struct {
	X, Y1, Y2 float64
	Left      bool // its label goes left of it, on the plot's right half
	Class     string
	Label     string
	Title     string
}

// A lane is one attempt of the run.
type lane struct {
	Title             string
	Y, Height, TitleY float64
	X0, X1, LifeY     float64 // the attempt's life
	Silences          []silence
	Stops             []stop
	Bars              []bar
	Rows              int
	Marks             []mark
	Verdict           string // words, "" for none
	Exit              string
}

// scale maps times since the run's start onto the plot.
type scale struct {
	origin time.Time
	total  time.Duration
}

func (s scale) x(at time.Time) float64 {
	return labelWidth + plotWidth*float64(at.Sub(s.origin))/float64(s.total)
}

// px is one plot unit as a duration.
func (s scale) px() time.Duration { return s.total / plotWidth }

// end is when the attempt's log stops: its exit, or the last thing in it.
func end(t *timeline.Timeline) timeline.Millis {
	var last timeline.Millis
	if t.Exit != nil {
		last = max(t.Exit.At, t.Exit.Duration)
	}
	for _, e := range t.Entries {
		last = max(last, e.At)
	}
	for _, c := range t.Calls {
		last = max(last, c.Start+c.Duration)
	}
	for _, n := range append(t.Notes, t.Kills...) {
		last = max(last, n.At)
	}
	if t.Verdict != nil {
		last = max(last, t.Verdict.At)
	}
	return last
}

func at(t *timeline.Timeline, m timeline.Millis) time.Time { return t.Start.Add(time.Duration(m)) }

// bars lays out an attempt's calls: each as a bar when it is at least a
// pixel wide; the narrower ones as one bar per pixel column, in the colour
// of their commonest kind.
func bars(t *timeline.Timeline, s scale, class map[string]string) ([]bar, int) {
	budgets := map[string]time.Duration{}
	if t.Verdict != nil {
		for _, c := range t.Verdict.Reason.OpenCalls {
			budgets[c.ID] = c.Budget
		}
	}
	var out []bar
	type column struct {
		calls      int
		kinds      map[string]int
		from, till timeline.Millis
	}
	cols := map[int]*column{}
	for _, c := range t.Calls {
		x0, x1 := s.x(at(t, c.Start)), s.x(at(t, c.Start+c.Duration))
		if x1-x0 < 1 {
			i := int(x0)
			col := cols[i]
			if col == nil {
				col = &column{kinds: map[string]int{}, from: c.Start}
				cols[i] = col
			}
			col.calls++
			col.kinds[c.Kind]++
			col.till = max(col.till, c.Start+c.Duration)
			continue
		}
		b := bar{X0: x0, X1: x1, Class: class[c.Kind], Calls: 1, Open: c.Open, Title: callTitle(c)}
		deadline := time.Duration(c.Declared)
		if deadline == 0 {
			deadline = budgets[c.ID]
		}
		if d := s.x(at(t, c.Start).Add(deadline)); deadline > 0 && d <= labelWidth+plotWidth {
			b.Deadline = d
		}
		out = append(out, b)
	}
	for i, col := range cols {
		title := fmt.Sprintf("%d tool calls, %s to %s: %s", col.calls, clock(at(t, col.from), s), clock(at(t, col.till), s), kindCounts(col.kinds))
		out = append(out, bar{X0: float64(i), X1: float64(i + 1), Class: class[commonest(col.kinds)], Calls: col.calls, Title: title})
	}
	slices.SortFunc(out, func(a, b bar) int {
		return cmp.Or(cmp.Compare(a.X0, b.X0), cmp.Compare(a.X1, b.X1), strings.Compare(a.Title, b.Title))
	})
	return out, pack(out)
}

// pack puts each bar in the first row free at its start; when none of the
// rows is, in the one that frees first. It returns the rows used.
func pack(bars []bar) int {
	var ends []float64
	for i := range bars {
		row := slices.IndexFunc(ends, func(e float64) bool { return e <= bars[i].X0 })
		if row < 0 && len(ends) < maxRows {
			ends = append(ends, 0)
			row = len(ends) - 1
		}
		if row < 0 {
			row = slices.Index(ends, slices.Min(ends))
		}
		bars[i].Row = row
		ends[row] = max(bars[i].X1, bars[i].X0+1)
	}
	return max(len(ends), 1)
}

func commonest(kinds map[string]int) string {
	best, n := "", -1
	for k, c := range kinds {
		if c > n || c == n && k < best {
			best, n = k, c
		}
	}
	return best
}

// kindCounts writes "20 shellToolCall, 3 readToolCall", the commonest first.
func kindCounts(kinds map[string]int) string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(kinds[b]-kinds[a], strings.Compare(a, b)) })
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%d %s", kinds[k], words.Cut(words.Display(k), 40))
	}
	return strings.Join(parts, ", ")
}

func callTitle(c timeline.Call) string {
	s := fmt.Sprintf("%s: %s\nran %s", words.Cut(words.Display(c.Kind), 40), words.Cut(words.Display(c.Command), maxText), words.Duration(time.Duration(c.Duration)))
	if c.Open {
		s += ", still open at the end of the log"
	}
	if c.Declared > 0 {
		s += ", declares " + words.Duration(time.Duration(c.Declared))
	}
	return s
}

// silences finds the stretches without output at least gap long: before
// the first line, between lines, and after the last. One is excused by
// evidence when the watchdog recorded some during it (the model connection
// streaming, the process tree busy), by a tool call when one was running.
func silences(t *timeline.Timeline, s scale, gap time.Duration) []silence {
	var spans [][2]timeline.Millis
	// A row folds a run of like events, so the silence before a row is
	// its gap, measured from the last event before it, not the row above.
	for i, e := range t.Entries {
		from := e.At - e.Gap
		if i == 0 {
			from = 0 // the command record: the agent's start-up
		}
		if time.Duration(e.At-from) >= gap {
			spans = append(spans, [2]timeline.Millis{from, e.At})
		}
	}
	// The last silence runs to the end; a verdict says when it began.
	var from timeline.Millis
	if n := len(t.Entries); n > 0 {
		from = t.Entries[n-1].At
	}
	if v := t.Verdict; v != nil {
		from = max(from, v.At-timeline.Millis(v.Reason.Silence))
	}
	if last := end(t); time.Duration(last-from) >= gap {
		spans = append(spans, [2]timeline.Millis{from, last})
	}
	out := make([]silence, 0, len(spans))
	for _, sp := range spans {
		from, till := sp[0], sp[1]
		title := "silence of " + words.Duration(time.Duration(till-from))
		cl := "silence"
		if why := evidence(t, from, till); why != "" {
			cl, title = "excused-evidence", title+", excused: "+why
		} else if c, ok := toolDuring(t, from, till); ok {
			cl, title = "excused-tool", title+", while a tool call ran: "+words.Cut(words.Display(c.Command), 80)
		}
		out = append(out, silence{X0: s.x(at(t, from)), X1: s.x(at(t, till)), Class: cl, Title: title + " (from " + clock(at(t, from), s) + ")"})
	}
	return out
}

// evidence says what excused the silence from..till, "" if nothing did:
// an evidence record (what earned it: the work of a process, a tool, a
// response streaming in, keep-alives while the model was waited on), or,
// in logs written before those, a verdict whose reason counts busy
// windows.
func evidence(t *timeline.Timeline, from, till timeline.Millis) string {
	for _, n := range t.Notes {
		if n.What == "evidence" && n.At > from && n.At <= till {
			return words.Cut(words.Display(n.Detail), 160)
		}
	}
	for _, c := range t.Changes {
		if ev := c.Reason.Evidence; c.At > from && c.At <= till && (ev.ActiveWindows > 0 || ev.Extended > 0) {
			return fmt.Sprintf("the agent's processes were busy (%d of %d windows; %.0f%% CPU)", ev.ActiveWindows, ev.Windows, ev.CPUPercent)
		}
	}
	return ""
}

// toolDuring returns a call that ran through at least half the silence.
func toolDuring(t *timeline.Timeline, from, till timeline.Millis) (timeline.Call, bool) {
	for _, c := range t.Calls {
		ran := min(c.Start+c.Duration, till) - max(c.Start, from)
		if 2*ran >= till-from {
			return c, true
		}
	}
	return timeline.Call{}, false
}

// clock writes an instant as time since the run's start: "+12.345s" in a
// run under a minute, "+1:02:03" in a longer one.
func clock(at time.Time, s scale) string {
	d := at.Sub(s.origin)
	if s.total < time.Minute {
		return words.Offset(d)
	}
	return words.Clock(d)
}

// ticks chooses the axis's labelled instants: a round step that gives at
// most about ten.
func ticks(s scale) []mark {
	ms, sec, minute, hour := time.Millisecond, time.Second, time.Minute, time.Hour
	steps := []time.Duration{ms, 2 * ms, 5 * ms, 10 * ms, 20 * ms, 50 * ms, 100 * ms, 200 * ms, 500 * ms,
		sec, 2 * sec, 5 * sec, 10 * sec, 15 * sec, 30 * sec, minute, 2 * minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute,
		hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour, 24 * hour}
	step := steps[len(steps)-1]
	for _, st := range steps {
		if s.total/st <= 10 {
			step = st
			break
		}
	}
	var out []mark
	for d := time.Duration(0); d <= s.total; d += step {
		out = append(out, mark{X: s.x(s.origin.Add(d)), Label: "+" + short(d)})
	}
	return out
}

// short writes a round duration without its zero tail: "2m", "1h30m".
func short(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if h, ok := strings.CutSuffix(s, "h0m"); ok {
		return h + "h"
	}
	return s
}

// place gives a lane's parts their heights, its top at y: its title, a
// strip for the marks, the rows of bars, the line of its life.
func (l *lane) place(y float64) {
	l.Y, l.TitleY = y, y+12
	band := y + 18
	barsTop := band + 10
	bottom := barsTop + float64(l.Rows)*(rowHeight+rowGap)
	for i := range l.Bars {
		l.Bars[i].Y = barsTop + float64(l.Bars[i].Row)*(rowHeight+rowGap)
	}
	for i := range l.Silences {
		l.Silences[i].Y, l.Silences[i].H = band, bottom-band
	}
	for i := range l.Stops {
		l.Stops[i].Y, l.Stops[i].H = band, bottom-band
	}
	l.LifeY = bottom + 2
	for i := range l.Marks {
		m := &l.Marks[i]
		switch m.Class {
		case "verdict", "kill":
			m.Y1, m.Y2 = band, bottom
		case "exit":
			m.Y1, m.Y2 = l.LifeY, l.LifeY
		default:
			m.Y1, m.Y2 = band, band+8
		}
	}
	l.Height = l.LifeY + 6 - y
}
