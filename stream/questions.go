package stream

import (
	"slices"
	"strings"
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

// Each agent's questions, with where they were seen (PUBLIC_RECORD.md §1,
// FORMAT.md). Patterns are tried in order; the ones every agent shares
// come last.
var (
	cursorQuestions = append([]QuestionPattern{
		// multica#7791/#7803, kprompt#144, escoffier-labs/brigade#205 (the
		// refusal that exits 0); FORMAT.md (HCN, SIRDAR, AGSRV).
		{Phrases: []string{"Workspace Trust Required"}, Fix: cursorTrust,
			Sample: "⚠ Workspace Trust Required\nPass --trust, --yolo, or -f if you trust this directory"},
		// The same prompt's last line, when its box is taller than the
		// lines read.
		{Phrases: []string{"Pass --trust", "if you trust this directory"}, Fix: cursorTrust,
			Sample: "Pass --trust, --yolo, or -f if you trust this directory"},
		// BloopAI/vibe-kanban maps it (FORMAT.md).
		{Phrases: []string{"Press any key to sign in"},
			Fix:    "log in once by hand (cursor-agent login), or set CURSOR_API_KEY",
			Sample: "Press any key to sign in..."},
	}, sharedQuestions...)
	claudeQuestions = append([]QuestionPattern{
		// scchearn/hcom-mcp#1: the trust dialog of a headless run.
		{Phrases: []string{"Do you trust the files in this folder"},
			Fix:    "run claude in this directory once by hand and trust it",
			Sample: "Do you trust the files in this folder?"},
		// SiderealPress/Lobster#92: claude auth login prints a URL and waits.
		{Phrases: []string{"Paste code here if prompted"},
			Fix:    "log in once by hand (claude auth login), or set ANTHROPIC_API_KEY",
			Sample: "Browser didn't open? Use the url below to sign in\nPaste code here if prompted >"},
	}, sharedQuestions...)
	geminiQuestions = append([]QuestionPattern{
		// Gemini CLI's folder trust; REAL_AGENTS.md runs it with --skip-trust.
		{Phrases: []string{"Do you trust this folder"},
			Fix:    "pass --skip-trust, or trust the folder once by hand",
			Sample: "Do you trust this folder?"},
		{Phrases: []string{"Waiting for auth"},
			Fix:    "log in once by hand, or set GEMINI_API_KEY",
			Sample: "Waiting for auth... (Press ESC or CTRL+C to cancel)"},
	}, sharedQuestions...)
	codexQuestions = append([]QuestionPattern{
		{Phrases: []string{"Sign in with ChatGPT"},
			Fix:    "log in once by hand (codex login), or set OPENAI_API_KEY",
			Sample: "Sign in with ChatGPT to use Codex"},
	}, sharedQuestions...)
	openCodeQuestions = append([]QuestionPattern{
		{Phrases: []string{"opencode auth login"},
			Fix:    "log in once by hand (opencode auth login), or set the provider's API key",
			Sample: "No provider configured. Run opencode auth login"},
	}, sharedQuestions...)
)

const cursorTrust = "pass --trust (or --yolo / -f) if you trust this directory, or run cursor-agent there once by hand and trust it"

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
		lines[i] = Display(l)
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
	q := Cut(first, quoteMax)
	if last != first {
		q += " … " + Cut(last, quoteMax)
	}
	return q
}

// Tail returns the last bytes of b that Asks reads.
func Tail(b []byte) []byte {
	return b[max(0, len(b)-questionTail):]
}
