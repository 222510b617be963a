package watchdog

import (
	"encoding/json"
	"time"
)

// A Reason explains a verdict: everything the hang record needs.
type Reason struct {
	Kind          string        // KindIdle, KindTool, KindDeadline or KindExit
	Silence       time.Duration // since the last output
	Elapsed       time.Duration // since the attempt started
	Threshold     time.Duration // the limit of the rule in Kind, if one
	DueIn         time.Duration // until the rule fires; ≤ 0 once it has
	LastEventType string        // "type/subtype" of the last line, "text" if not JSON
	SessionID     string
	OpenCalls     []OpenCall // longest running first
	Evidence      Evidence
}

// An OpenCall is a tool call that was running at the check.
type OpenCall struct {
	ID      string
	Kind    string
	Command string
	Elapsed time.Duration
	Timeout time.Duration // declared by the agent, 0 if none
	Budget  time.Duration // the deadline the watchdog applied
}

// MarshalJSON writes the reason with the field names of the session log's
// hang_detected record: durations in milliseconds.
func (r Reason) MarshalJSON() ([]byte, error) {
	type openCall struct {
		CallID    string `json:"call_id"`
		Kind      string `json:"kind"`
		Command   string `json:"command"`
		ElapsedMS int64  `json:"elapsed_ms"`
		TimeoutMS int64  `json:"timeout_ms"`
		BudgetMS  int64  `json:"budget_ms"`
	}
	calls := make([]openCall, 0, len(r.OpenCalls))
	for _, c := range r.OpenCalls {
		calls = append(calls, openCall{c.ID, c.Kind, c.Command, c.Elapsed.Milliseconds(), c.Timeout.Milliseconds(), c.Budget.Milliseconds()})
	}
	out := struct {
		Kind          string     `json:"kind"`
		IdleSilenceMS int64      `json:"idle_silence_ms"`
		ElapsedMS     int64      `json:"elapsed_ms"`
		ThresholdMS   int64      `json:"threshold_ms,omitempty"`
		OpenCallCount int        `json:"open_call_count"`
		LastEventType string     `json:"last_event_type"`
		SessionID     string     `json:"session_id,omitempty"`
		OpenCalls     []openCall `json:"open_calls"`
		Evidence      *evidence  `json:"activity,omitempty"`
	}{
		Kind: r.Kind, IdleSilenceMS: r.Silence.Milliseconds(), ElapsedMS: r.Elapsed.Milliseconds(),
		ThresholdMS: r.Threshold.Milliseconds(), OpenCallCount: len(r.OpenCalls),
		LastEventType: r.LastEventType, SessionID: r.SessionID, OpenCalls: calls,
	}
	if r.Evidence.Windows > 0 {
		e := r.Evidence
		out.Evidence = &evidence{e.Windows, e.ActiveWindows, round1(e.CPUPercent), round1(e.ReadPerSec), e.Extended.Milliseconds()}
	}
	return json.Marshal(out)
}

type evidence struct {
	Windows       int     `json:"windows"`
	ActiveWindows int     `json:"active_windows"`
	CPUPercent    float64 `json:"last_cpu_percent"`
	ReadPerSec    float64 `json:"last_read_bytes_per_sec"`
	ExtendedMS    int64   `json:"extended_ms"`
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
