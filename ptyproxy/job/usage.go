package job

import "cursor-wrap/stream"

// spend adds an attempt's usage to the run's, and returns the run's so
// far, nil while no attempt reported any. Attempts add up: an agent that
// reports only at the end (Codex, Gemini CLI, cursor-agent) reports
// nothing from an attempt that hung, and Codex's resumed thread then
// reports what the whole thread spent.
func (j *Job) spend(attempt *stream.Usage) *stream.Usage {
	j.spent.Add(stream.Event{Usage: attempt, UsageScope: stream.UsageDelta})
	if !j.spent.Reported() {
		return nil
	}
	u := j.spent.Total()
	return &u
}
