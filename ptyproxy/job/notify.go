package job

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync/atomic"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/notify"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// notices are a run's notifications: the events notify_on names, told
// from the attempts' results, masked like the log, and sent to the notify
// targets beside the run by package notify.
type notices struct {
	sender *notify.Sender // made by Job.init
	// noDesktop is set once the console said desktop notifications are
	// skipped.
	noDesktop atomic.Bool
}

func (j *Job) sender() *notify.Sender {
	j.init()
	return j.notes.sender
}

// notify sends ev about the attempt res, with its reason in words, when
// notify names a target and notify_on names ev. It returns at once. The
// reason and the prompt are shown as the agent's text is everywhere
// (words.Display): an agent error quotes the agent.
func (j *Job) notify(ev notify.Event, res Result, reason string) {
	cfg := j.Live.Config()
	if !wants(cfg, ev) {
		return
	}
	m := notify.Message{Event: ev, SessionID: res.SessionID, Cwd: j.Cmd.Dir, Reason: words.Display(reason), Log: res.LogPath, Time: j.clock().Now()}
	if m.Cwd == "" {
		m.Cwd, _ = os.Getwd()
	}
	if ev != notify.Warn && j.Cmd.Mode == stream.Events {
		m.Usage = words.Reported(res.Spent)
	}
	if p := j.Cmd.Profile; p != nil {
		m.Agent = p.Name
		if j.Cmd.Demo {
			m.Agent += " (demo)"
		}
		m.Prompt = sessionlog.PromptStart(p.Prompt(j.Cmd.Args))
		if res.SessionID != "" && p.CanResume() {
			m.Resume = resumeCommand(p, j.Cmd.Args, res.SessionID, cfg.RestartPrompt)
		}
	}
	j.sender().Send(cfg.Notify, m)
}

func wants(cfg config.Config, ev notify.Event) bool {
	return len(cfg.Notify) > 0 && slices.Contains(cfg.NotifyOn, string(ev))
}

// notifyError tells that the agent stopped on an error it stated (an
// agent_error record: a rate limit, no login, …), once per attempt.
func (j *Job) notifyError(res Result) {
	if e := res.AgentError; e != nil {
		j.notify(notify.Error, res, string(e.Kind)+": "+e.Message)
	}
}

// ended tells of the run's end (finish), the whole run told, then gives the deliveries in
// flight a bounded time to get out before the caller exits
// (notify.Sender.Wait: at most notify.ExitWait, and notify.AnswerWait for
// a server that took the request and does not answer).
func (j *Job) ended(res Result, err error) {
	reason := j.Cmd.RunWords(res)
	if err != nil {
		reason = "the agent could not be started: " + err.Error()
	}
	j.notify(notify.Finish, res, reason)
	j.sender().Wait()
}

// delivered logs how a delivery ended: a record in its attempt's log (after
// the attempt's own records, when it came late), and a console line when
// it failed; a missing desktop notifier is said once a run.
func (j *Job) delivered(r notify.Result) {
	var rec sessionlog.Record = sessionlog.NotifySent{Event: string(r.Event), Target: r.Target, Status: r.Status, Tries: r.Tries, MS: r.Took.Milliseconds()}
	if r.Err != nil {
		rec = sessionlog.NotifyFailed{Event: string(r.Event), Target: r.Target, Error: r.Err.Error(), Tries: r.Tries}
		switch {
		case !errors.Is(r.Err, notify.ErrNoDesktop):
			j.console.Warn(fmt.Sprintf("%s notification to %s failed: %v", r.Event, r.Target, r.Err))
		case !j.notes.noDesktop.Swap(true):
			j.console.Warn("desktop notifications skipped: " + r.Err.Error())
		}
	}
	if r.Log != "" {
		// A log that cannot take it was reported when it failed.
		_ = sessionlog.Append(r.Log, j.redact, rec)
	}
}

// A warner tells of an attempt's hang warnings: the verdict turning to
// warn (the loop's "hang imminent" warning record), as the loop reports
// it to OnStatus. It runs on the loop's goroutine, so it only starts the
// notification.
type warner struct {
	j       *Job
	log     *sessionlog.File
	next    func(ptyproxy.Status) // the job's own OnStatus
	session string
	warned  bool
}

func (w *warner) status(st ptyproxy.Status) {
	if w.next != nil {
		w.next(st)
	}
	warn := st.Verdict == watchdog.Warn
	if warn && !w.warned && wants(w.j.Live.Config(), notify.Warn) {
		res := Result{Outcome: ptyproxy.Outcome{SessionID: w.session}}
		reason := st.Reason.Imminent()
		go func() {
			res.LogPath = w.log.Path() // Waits for the file to be created.
			w.j.notify(notify.Warn, res, reason)
		}()
	}
	w.warned = warn
}

// resumeCommand is the wrapper command that resumes session id, as a
// restart would.
func resumeCommand(p *stream.Profile, args []string, id, prompt string) string {
	return ShellWords(append([]string{"cursor-wrap", "--agent", p.Name, "--"}, p.Resume(args, id, prompt)...))
}
