package ptyproxy

import (
	"syscall"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// The session loop's side of the agent's output: each read the reader
// forwarded is cut into lines, logged, and fed to the watchdog here.

// cutLines sets up the splitter (and, when events are parsed, the joiner)
// that turn the batches' bytes into lines for onLine.
func (l *loop) cutLines() {
	if l.o.Parse == nil {
		l.split = stream.NewSplitter(stream.DefaultKeep, func(ln stream.Line) { l.onLine(ln, stream.Event{}) })
		return
	}
	// An event whose strings hold raw newlines spans several physical
	// lines: the joiner parses it as one.
	l.join = stream.NewJoiner(stream.DefaultKeep, l.o.Parse, l.onLine)
	l.split = stream.NewSplitter(stream.DefaultKeep, l.join.Add)
}

// onBatch logs and feeds one read's worth of output, then decides.
func (l *loop) onBatch(b *batch, now time.Time) {
	l.feed(b)
	if l.end.phase != Running {
		return
	}
	if err := l.r.stdoutErr(); err != nil {
		l.out.Cause, l.out.StdoutErr = Downstream, err
		l.stop(now, syscall.SIGTERM, sessionlog.DownstreamClosed{Error: err.Error()})
		l.o.Console.Warn(stdoutWords(err) + "; stopping the agent")
		return
	}
	l.listen(b.at)
	// The hard deadline can pass while output flows: the batch that sees
	// it acts, since the timer is re-armed past it.
	l.decide(b.at, now)
}

// feed cuts a batch into lines and hands them to the watchdog and the log.
func (l *loop) feed(b *batch) {
	if l.r.recooked.Swap(0) > 0 {
		l.o.Log.Write(sessionlog.Warning{Message: "the agent turned its terminal's output processing back on (stty sane?): it was set raw again, and the \r it added to line ends taken out"})
	}
	if !l.exited {
		l.tree.observe(b.at)
	}
	l.endSilence(b.at)
	l.last = b.at
	// Bytes of a line still arriving prove the stream alive too.
	l.wd.Output(b.at)
	if b.end {
		l.split.Flush()
		if l.join != nil {
			l.join.Flush()
		}
	} else {
		l.wroteAt = b.at
		l.split.Write(b.data)
	}
	l.flushEvents()
}

// endStream cuts what the stream ended inside of (a line without its
// newline, lines held for an event that never closed) as a batch of its
// own, at now.
func (l *loop) endStream(now time.Time) {
	l.out.MidLine = l.split.MidLine()
	if l.out.MidLine || l.join != nil && l.join.Holding() {
		l.onBatch(&batch{at: now, end: true}, now)
	}
}

// onLine logs one logical line and hands its event to the watchdog.
func (l *loop) onLine(ln stream.Line, ev stream.Event) {
	l.out.Lines++
	l.logEvent(ln, ev)
	if l.o.Parse == nil || ev.NotJSON {
		heard(&l.said, ln.Text)
		l.saidAt = l.wroteAt
	} else {
		l.forget(l.last)
	}
	if l.o.Parse == nil {
		return
	}
	if ev.Terminal && !l.wd.Done() {
		l.out.Failed = ev.Failed // The first terminal event says how the run ended.
	}
	notice := l.wd.ProcessEvent(ev, l.last)
	l.out.ToolCalls += len(ev.Started)
	if !ev.NotJSON {
		l.out.Events++
	}
	l.answer.Add(ev)
	if notice&watchdog.UsageChanged != 0 {
		l.flushEvents() // After the event that reported it.
		u, _ := l.wd.Usage()
		l.o.Log.Write(sessionlog.UsageOf(u))
	}
	if ev.Error != nil {
		l.flushEvents()
		l.agentError(ev.Error, "stdout", l.last)
	}
	if notice == watchdog.NoNotice {
		return
	}
	// The records this event leads to come after its own.
	l.flushEvents()
	if notice&watchdog.NewSession != 0 && l.o.OnSession != nil {
		l.o.OnSession(ev.SessionID)
	}
	if notice&watchdog.UnknownCall != 0 {
		l.o.Log.Write(sessionlog.Warning{Message: "a tool call ended that was not open", CallID: ev.CallID})
	}
	if notice&watchdog.DuplicateCall != 0 {
		l.o.Log.Write(sessionlog.Warning{Message: "a tool call started twice; its first start counts", CallID: ev.CallID})
	}
	if notice&watchdog.PassedAtEnd != 0 {
		budget, limit, total := l.wd.OverBudget()
		late := words.Budget(budget, budget == watchdog.BudgetCost, limit, total) + ", when the run had ended: nothing was stopped"
		l.o.Log.Write(sessionlog.Warning{Message: late})
		l.o.Console.Warn(late)
	}
}

// logEvent adds a line's event record to the batch's records, stamped
// with the batch's time.
func (l *loop) logEvent(ln stream.Line, ev stream.Event) {
	if l.o.Log == nil {
		return
	}
	at := l.last
	l.events = l.o.Log.AppendEvent(l.events, sessionlog.Event{
		Time: at, RecvTS: at.UnixMilli(), AgentTS: ev.AgentTS,
		Type: ev.Type, Subtype: ev.Subtype, CallID: ev.CallID, Raw: ln.Text,
		ParseError: ev.NotJSON, Truncated: ev.Truncated, Len: ln.Len, Partial: !ln.Newline,
	})
}

// flushEvents writes the event records gathered so far in one write, as
// they must come before any other record the batch leads to.
func (l *loop) flushEvents() {
	l.o.Log.Events(l.events)
	l.events = l.events[:0]
}
