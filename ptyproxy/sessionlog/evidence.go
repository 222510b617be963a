package sessionlog

import (
	"fmt"
	"strings"

	"cursor-wrap/watchdog"
)

// Evidence is what excused a silence, written when it first does in that
// silence: the agent's or a tool's work, a tool of the open call running,
// a response streaming in on the agent's connection, or the keep-alives of
// a live peer while the model is waited on. Each names what earned it (the
// process, the call, the connection) and why (the figures the rule
// weighed).
type Evidence struct {
	record
	// Earned is watchdog.WorkedBusy ("work"), watchdog.WorkedTool,
	// watchdog.EarnedContent or watchdog.EarnedKeepAlive.
	Earned string `json:"earned"`
	// The process whose work or run earned it (its command line, for
	// people, and pid), and the open call it belongs to.
	Process    string  `json:"process,omitempty"`
	Pid        int     `json:"pid,omitempty"`
	CallID     string  `json:"call_id,omitempty"`
	CPUPercent float64 `json:"cpu_percent,omitempty"`
	ReadPerSec float64 `json:"read_bytes_per_sec,omitempty"`
	// The connection that earned it: when data last arrived on it, the
	// content it received in the silence, the gap between its arrivals,
	// and how long the model had been waited on.
	Connection   string `json:"connection,omitempty"`
	ReceivedMS   int64  `json:"received_ms_ago,omitempty"`
	ContentBytes int64  `json:"content_bytes,omitempty"`
	PeriodMS     int64  `json:"keepalive_period_ms,omitempty"`
	ModelWaitMS  int64  `json:"model_wait_ms,omitempty"`
	SilenceMS    int64  `json:"idle_silence_ms"`
}

// WorkEvidence is the record of the work that earned the last active
// window of r's silence; agent is the agent's pid, which did it when the
// evidence names no other process.
func WorkEvidence(r watchdog.Reason, agent int) Evidence {
	e := r.Evidence
	pid, process := e.Pid, e.Process
	if pid == 0 {
		pid, process = agent, "the agent"
	}
	return Evidence{Earned: e.Worked, Process: process, Pid: pid, CallID: e.CallID,
		CPUPercent: round1(e.CPUPercent), ReadPerSec: round1(e.ReadPerSec), SilenceMS: r.Silence.Milliseconds()}
}

// ConnEvidence is the record of the connection that excuses r's silence.
func ConnEvidence(r watchdog.Reason) Evidence {
	e := r.Evidence
	return Evidence{Earned: e.Earned, Connection: e.Conn, ReceivedMS: e.ConnQuiet.Milliseconds(), ContentBytes: e.Content,
		PeriodMS: e.Period.Milliseconds(), ModelWaitMS: e.ModelWait.Milliseconds(), SilenceMS: r.Silence.Milliseconds()}
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// words say what excused the silence, for inspect's notes.
func (r *Evidence) words() string {
	var s string
	switch r.Earned {
	case watchdog.EarnedContent:
		s = fmt.Sprintf("a response streaming in on the connection to %s: %d B, the last %dms before", r.Connection, r.ContentBytes, r.ReceivedMS)
	case watchdog.EarnedKeepAlive:
		var why []string
		if r.PeriodMS > 0 {
			why = append(why, fmt.Sprintf("every %dms", r.PeriodMS))
		}
		if r.ModelWaitMS > 0 {
			why = append(why, fmt.Sprintf("the model waited on for %dms", r.ModelWaitMS))
		}
		s = fmt.Sprintf("keep-alives on the connection to %s, the last %dms before", r.Connection, r.ReceivedMS)
		if len(why) > 0 {
			s += " (" + strings.Join(why, ", ") + ")"
		}
	case watchdog.WorkedTool:
		s = fmt.Sprintf("%s (pid %d), the tool of call %s, running", r.Process, r.Pid, r.CallID)
	default:
		s = fmt.Sprintf("%s (pid %d) at work: %.1f%% CPU, %.0f B/s read", r.Process, r.Pid, r.CPUPercent, r.ReadPerSec)
		if r.CallID != "" {
			s += ", for call " + r.CallID
		}
	}
	return s + fmt.Sprintf(", %dms into a silence", r.SilenceMS)
}
