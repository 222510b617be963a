package job

import (
	"slices"
	"testing"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// TestMissing counts each argument: a flag the user gave once and the
// wrapper once more is added once.
func TestMissing(t *testing.T) {
	t.Parallel()
	given := []string{"--model", "x", "fix it"}
	run := []string{"-p", "--model", "x", "--force", "--model", "fix it"}
	if got := missing(given, run); !slices.Equal(got, []string{"-p", "--force", "--model"}) {
		t.Errorf("added %q", got)
	}
	if got := missing(run, given); got != nil {
		t.Errorf("taken out %q", got)
	}
}

// TestEnvChange names the variables set anew or to another value, and
// those taken out; an environment left nil is the caller's.
func TestEnvChange(t *testing.T) {
	t.Parallel()
	from := []string{"HOME=/h", "CURSOR_WRAP_FUNC=cursor-agent", "CURSOR_WRAP_DEPTH=1", "API_KEY=s3cret-value"}
	env := []string{"HOME=/h", "CURSOR_WRAP_DEPTH=2", "API_KEY=s3cret-value"}
	added, removed := envChange(from, env)
	if !slices.Equal(added, []string{"CURSOR_WRAP_DEPTH"}) || !slices.Equal(removed, []string{"CURSOR_WRAP_FUNC"}) {
		t.Errorf("added %q, taken out %q", added, removed)
	}
	if added, removed := envChange(from, nil); added != nil || removed != nil {
		t.Errorf("a nil environment: added %q, taken out %q", added, removed)
	}
}

// TestInputRecords: an attempt records the arguments the wrapper added to
// the user's (a resumed one, the prompt it took out too) and the
// variables, by name; a restart's notes follow.
func TestInputRecords(t *testing.T) {
	t.Parallel()
	cmd := Command{Profile: stream.Claude, Given: []string{"fix it", "--api-key", "k-0123456789"},
		Args: []string{"-p", "--output-format", "stream-json", "--verbose", "fix it", "--api-key", "k-0123456789"}}
	j := &Job{Cmd: cmd}
	j.init()
	recs := j.inputRecords(cmd.Args, nil, nil)
	if len(recs) != 2 || recs[0].Change != sessionlog.InputArguments || !slices.Equal(recs[0].Added, []string{"-p", "--output-format", "stream-json", "--verbose"}) ||
		recs[0].Removed != nil || recs[0].Message != "arguments added by the wrapper: -p --output-format stream-json --verbose" {
		t.Errorf("arguments %+v", recs)
	}
	if env := recs[len(recs)-1]; env.Change != sessionlog.InputEnvironment || !slices.Contains(env.Added, ptyproxy.MarkerEnv) {
		t.Errorf("environment %+v", env)
	}
	resumed := []string{"-p", "--output-format", "stream-json", "--verbose", "--api-key", "k-0123456789", "--resume", "s-1", "continue"}
	note := sessionlog.Input{Change: sessionlog.InputPrompt}
	recs = j.inputRecords(resumed, nil, []sessionlog.Input{note})
	if a := recs[0]; !slices.Contains(a.Added, "--resume") || !slices.Equal(a.Removed, []string{"fix it"}) || recs[len(recs)-1].Change != note.Change {
		t.Errorf("a resumed attempt: %+v", recs)
	}
}
