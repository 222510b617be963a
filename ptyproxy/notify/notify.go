// Package notify tells people about a run when it matters, without their
// watching a terminal: a desktop notification, or one JSON POST per event
// to a webhook that Slack-, Discord- and Mattermost-style incoming
// webhooks and ntfy all show. Delivery runs beside the run, in goroutines
// of its own, and nothing waits for it but Wait, at the end of a run, for
// a bounded time.
package notify

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// An Event is a moment of a run worth telling.
type Event string

// The events, as notify_on names them.
const (
	Hang    Event = "hang"    // an attempt hung and was killed
	Error   Event = "error"   // the agent said it cannot go on (an agent error)
	Restart Event = "restart" // a restart was decided
	Finish  Event = "finish"  // the run ended, whatever the outcome
	Warn    Event = "warn"    // a hang is near (warn_before)
)

// Events lists every event.
var Events = []Event{Hang, Error, Restart, Finish, Warn}

// Default are the events that notify unless notify_on says otherwise.
var Default = []Event{Hang, Error, Restart}

// Names returns the events' names.
func Names(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = string(e)
	}
	return out
}

// Desktop is the target that shows a desktop notification.
const Desktop = "desktop"

// CheckTarget says what is wrong with a target that is neither Desktop
// nor an http(s) URL with a host. It shows a URL as Label does.
func CheckTarget(t string) error {
	if t == Desktop {
		return nil
	}
	u, err := url.Parse(t)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not %s or an http(s) URL", Label(t), Desktop)
	}
	return nil
}

// Label names a target for logs and messages: a webhook URL carries its
// secret in the path (Slack's, Discord's), the query (?auth=…) or the
// fragment, or is the secret (an ntfy topic), so only its scheme and host
// are shown, then what comes next as "/…", "?…" or "#…".
func Label(t string) string {
	scheme, rest, isURL := strings.Cut(t, "://")
	if !isURL {
		scheme, rest = "", t
	}
	host, more := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host, more = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:] // user:password@host
	}
	out := host
	if isURL {
		out = scheme + "://" + host
	}
	if more != "" && more != "/" {
		out += more[:1] + "…"
	}
	return out
}

// A Message is one notification. As JSON it is the body of a webhook's
// POST: text (Slack, Mattermost) and content (Discord) hold the same
// one-line summary; the other fields are for programs.
type Message struct {
	Text      string `json:"text"`
	Content   string `json:"content"`
	Event     Event  `json:"event"`
	Agent     string `json:"agent"`
	SessionID string `json:"session_id"`
	Prompt    string `json:"prompt"` // its first words
	Cwd       string `json:"cwd"`
	Reason    string `json:"reason"` // in words
	Log       string `json:"log"`
	Resume    string `json:"resume,omitempty"` // a command that resumes the session
	// Usage says what the agent reported it spent over the run so far, or
	// "not reported"; "" in a warning, which comes mid-attempt.
	Usage string    `json:"usage,omitempty"`
	Time  time.Time `json:"time"`
	// Mentions keeps Discord from pinging anyone a prompt names.
	Mentions struct {
		Parse []string `json:"parse"`
	} `json:"allowed_mentions"`
}

// maxText bounds the one-line summary (Discord takes 2000 characters).
const maxText = 400

// Title is the message's headline: "cursor-wrap: cursor hung".
func (m *Message) Title() string {
	words := map[Event]string{Hang: "hung", Error: "stopped on an error", Restart: "is restarting", Finish: "run ended", Warn: "may be hanging"}[m.Event]
	return "cursor-wrap: " + m.Agent + " " + words
}

// summary is the one-line text: the title, the reason and where.
func (m *Message) summary() string {
	s := m.Title() + ": " + m.Reason
	if m.Usage != "" {
		s += "; usage: " + m.Usage
	}
	s += ". Session " + cmp.Or(m.SessionID, "(no id)")
	if m.Cwd != "" {
		s += " in " + m.Cwd
	}
	if m.Prompt != "" {
		s += fmt.Sprintf(", prompt %q", m.Prompt)
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxText {
		s = string(r[:maxText-1]) + "…"
	}
	return s
}

// body is the JSON a webhook gets, its text filled in.
func (m Message) body() []byte {
	m.Text = m.summary()
	m.Content = m.Text
	m.Mentions.Parse = []string{}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// As the session log writes strings: the redactor looks for secrets
	// in that form.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		panic(err) // Strings and a time only: it cannot fail.
	}
	return b.Bytes()
}

// errURL strips the URL from a net/http error: it holds the webhook's
// secret.
func errURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
