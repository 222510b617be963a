package stream

import (
	"slices"
	"strings"

	"cursor-wrap/words"
)

// A Question is a prompt on an agent's terminal that only a person can
// answer (workspace trust, a login, "press Enter", a [y/N] confirmation):
// a headless run that meets one can only wait.
type Question struct {
	Quote string // the prompt as the agent wrote it, on one line
	Fix   string // what lets the run go on without a person
}

// A QuestionPattern is one prompt an agent is known to ask: every one of
// its Phrases (matched without regard to case, escape sequences removed)
// is in the text the agent left on its terminal. Sample is the prompt as
// seen, for the tests.
type QuestionPattern struct {
	Phrases []string
	Fix     string
	Sample  string
}

// sharedQuestions are the prompts any terminal program asks.
// google-gemini/gemini-cli#13277: confirmation Y/n prompts hang in CI.
var sharedQuestions = []QuestionPattern{
	{Phrases: []string{"[y/n]"}, Fix: "pass the agent's flag that answers for you (its yolo or force flag), or answer it by hand", Sample: "Apply these changes? [y/N] "},
	{Phrases: []string{"(y/n)"}, Fix: "pass the agent's flag that answers for you (its yolo or force flag), or answer it by hand", Sample: "Allow execution? (y/n) "},
	{Phrases: []string{"press enter to continue"}, Fix: "run the agent once by hand and go past the prompt", Sample: "Press Enter to continue"},
}

// questionTail is how much of the agent's last words is kept, and
// questionLines how many of their last lines are read: a question waits
// at the bottom of the screen, and an answer that quoted one further up
// is not a question.
const (
	questionTail  = 1 << 10
	questionLines = 6
)

// quoteMax bounds a quoted line: it is read by people.
const quoteMax = 160

// Asks returns the question the agent's last words on its terminal
// (text, the end of what it wrote that was not its stream) put to a
// person, or nil. Only the last questionLines lines of the last
// questionTail bytes are read.
func (p *Profile) Asks(text []byte) *Question {
	if p == nil || len(p.questions) == 0 {
		return nil
	}
	if len(text) > questionTail {
		text = text[len(text)-questionTail:]
	}
	// Each line as a person sees it: escape sequences gone, a line a
	// carriage return rewrote counted in full (its words are on screen).
	lines := strings.FieldsFunc(string(text), func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = words.Display(l)
	}
	lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
	lines = lines[max(0, len(lines)-questionLines):]
	lower := strings.ToLower(strings.Join(lines, "\n"))
	for _, q := range p.questions {
		if !slices.ContainsFunc(q.Phrases, func(s string) bool { return !strings.Contains(lower, strings.ToLower(s)) }) {
			return &Question{Quote: quote(lines, q.Phrases[0]), Fix: q.Fix}
		}
	}
	return nil
}

// quote is the line that holds phrase, and the last line written when it
// is another: "⚠ Workspace Trust Required … Pass --trust, …".
func quote(lines []string, phrase string) string {
	var first, last string
	for _, l := range lines {
		if first == "" && strings.Contains(strings.ToLower(l), strings.ToLower(phrase)) {
			first = l
		}
		last = l
	}
	q := words.Cut(first, quoteMax)
	if last != first {
		q += " … " + words.Cut(last, quoteMax)
	}
	return q
}

// Tail returns the last bytes of b that Asks reads.
func Tail(b []byte) []byte {
	return b[max(0, len(b)-questionTail):]
}
