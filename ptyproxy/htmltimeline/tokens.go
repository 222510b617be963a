package htmltimeline

import (
	"fmt"
	"time"

	"cursor-wrap/ptyproxy/sessionlog/timeline"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// maxTokenDots is how many recorded totals the tokens lane marks, for
// hovering; a run with more shows only the line.
const maxTokenDots = 200

// A tokenLane draws what the run spent over time: the tokens billed, input
// with cache writes and output (what max_tokens counts), as a step line, each attempt's running
// total added to the attempts' before it. Only a run whose agent reported
// usage has one.
type tokenLane struct {
	Y, Height, TitleY, Base float64
	X0, X1                  float64
	Path                    string // the step line, in SVG path syntax
	Top                     string // the highest total, at the lane's top
	Total                   string // the run's total in words
	Dots                    []mark
	Limit                   *mark // max_tokens, when a run passed it
}

// tokens lays out the tokens lane at y; nil when no attempt reported usage.
func tokens(run []*timeline.Timeline, s scale, y float64) *tokenLane {
	type point struct {
		x    float64
		when time.Time
		u    stream.Usage
	}
	var points []point
	var before stream.Usage
	for _, t := range run {
		var last stream.Usage
		for _, r := range t.Usage {
			last = r.Usage()
			when := at(t, r.At)
			p := point{s.x(when), when, before.Plus(last)}
			// One point a pixel column: its last total.
			if n := len(points); n > 0 && int(points[n-1].x) == int(p.x) {
				points[n-1] = p
			} else {
				points = append(points, p)
			}
		}
		before = before.Plus(last)
	}
	if len(points) == 0 {
		return nil
	}
	var top int64
	for _, p := range points {
		top = max(top, p.u.Tokens())
	}
	// A run stopped by its token budget shows the budget it passed.
	var limit int64
	var passed string
	if v := run[len(run)-1].Verdict; v != nil && v.Reason.Kind == watchdog.KindBudget && v.Reason.Budget == watchdog.BudgetTokens {
		limit, passed = int64(v.Reason.Limit), v.Reason.Describe()
		top = max(top, limit)
	}
	l := &tokenLane{Y: y, TitleY: y + 12, Height: 56, X0: s.x(run[0].Start), X1: s.x(at(run[len(run)-1], end(run[len(run)-1])))}
	l.Base = y + 50
	l.Top, l.Total = words.Compact(top)+" tokens", "the run's total: "+before.String()
	level := func(u stream.Usage) float64 {
		if top == 0 {
			return l.Base
		}
		return l.Base - 34*float64(u.Tokens())/float64(top)
	}
	path := fmt.Sprintf("M%.1f %.1f", l.X0, l.Base)
	for _, p := range points {
		path += fmt.Sprintf("H%.1fV%.1f", p.x, level(p.u))
	}
	l.Path = path + fmt.Sprintf("H%.1f", l.X1)
	if limit > 0 {
		y := level(stream.Usage{Input: limit})
		l.Limit = &mark{X: l.X0, Y1: y, Label: "max_tokens " + words.Compact(limit), Title: passed}
	}
	if len(points) <= maxTokenDots {
		for _, p := range points {
			l.Dots = append(l.Dots, mark{X: p.x, Y1: level(p.u), Title: clock(p.when, s) + " " + p.u.String()})
		}
	}
	return l
}
