// Command mockmodel is a test-only model server that speaks just enough of the
// Anthropic Messages, OpenAI Responses and Gemini streaming APIs for the real
// agent CLIs (Claude Code, Codex, Gemini CLI, opencode) to run against it
// offline. scripts/realagents.sh drives it.
//
// The --scenario flag picks the answer to the agent's main turn:
//
//	A  a plain text answer
//	B  a call to the CLI's own shell tool running `sleep 20`, then a text
//	   answer once the tool result comes back
//	C  response headers and one text delta ("Hello"), then silence until the
//	   client goes away: a genuine model-stream stall
//	T  a model thinking: response headers, then only keep-alives (--ping-every)
//	   for --think, then the plain text answer
//	P  response headers, then only keep-alives until the client goes away: a
//	   stream kept alive that never answers
//
// The keep-alive is what each API sends while a model works: Anthropic's
// `event: ping`; the OpenAI Responses and Gemini APIs define none, so an SSE
// comment (": keep-alive"), which every SSE parser skips, as proxies and
// servers send to keep a connection from timing out. The Responses API is
// also served over a WebSocket (GET /v1/responses, as Codex speaks it with
// supports_websockets = true); there the keep-alive is a WebSocket ping.
//
// A request that offers no shell tool (opencode's title generation) always
// gets the plain answer, so side requests never stall or call tools.
//
// It listens on --addr (default 127.0.0.1:0), prints "listening on ADDR" as
// the first line of stdout, optionally writes the port to --port-file, and
// logs one line per request to --log (default stderr).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The answers and the tool call, as the captures in shared/real-captures
// have them.
const (
	textHello = "Hello from the mock model."
	textDone  = "The command `sleep 20` finished. Done."
	textStall = "Hello"
	command   = "sleep 20"
	describe  = "Sleep for 20 seconds"
	timeoutMS = 60000 // the tool timeout Claude Code and opencode are given
)

// Token counts reported by every answer, so the CLIs' usage lines are stable.
const (
	inputTokens  = 50
	outputTokens = 12
)

type obj = map[string]any

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mockmodel:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mockmodel", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	scenario := fs.String("scenario", "A", "A (text), B (sleep 20 through the shell tool, then text), C (one delta, then stall), T (keep-alives for --think, then text) or P (keep-alives for ever)")
	think := fs.Duration("think", 20*time.Second, "scenario T: how long the model thinks, sending only keep-alives")
	pingEvery := fs.Duration("ping-every", 2*time.Second, "scenarios T and P: the time between two keep-alives")
	portFile := fs.String("port-file", "", "also write the chosen port to this file")
	logPath := fs.String("log", "", "append the request log to this file instead of stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch *scenario {
	case "A", "B", "C", "T", "P":
	default:
		return fmt.Errorf("unknown scenario %q (want A, B, C, T or P)", *scenario)
	}
	if *pingEvery <= 0 {
		return fmt.Errorf("--ping-every %v: want more than 0", *pingEvery)
	}
	logOut := io.Writer(os.Stderr)
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		logOut = f
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on %s\n", ln.Addr())
	if *portFile != "" {
		if err := writePortFile(*portFile, ln.Addr().(*net.TCPAddr).Port); err != nil {
			return err
		}
	}
	s := &server{
		scenario:  *scenario,
		gap:       50 * time.Millisecond,
		think:     *think,
		pingEvery: *pingEvery,
		log:       log.New(logOut, "", log.Ltime|log.Lmicroseconds),
	}
	return http.Serve(ln, s.routes())
}

// writePortFile renames into place so a script polling for the file never
// reads it half-written.
func writePortFile(path string, port int) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".port-*")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(tmp, port)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // Best effort.
	}
	return err
}

type server struct {
	scenario  string
	gap       time.Duration // between text deltas, like a model producing tokens
	think     time.Duration // scenario T: keep-alives only, before the answer
	pingEvery time.Duration // scenarios T and P: between two keep-alives
	log       *log.Logger
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	// Claude Code probes the base URL before its first request.
	mux.HandleFunc("HEAD /{$}", func(w http.ResponseWriter, r *http.Request) {
		s.log.Printf("%s %s -> 200", r.Method, r.URL.RequestURI())
	})
	mux.HandleFunc("POST /v1/messages", s.anthropic)
	mux.HandleFunc("POST /v1/responses", s.responses)
	mux.HandleFunc("GET /v1/responses", s.responsesWS)
	mux.HandleFunc("POST /v1beta/models/{call}", s.gemini)
	mux.HandleFunc("/", s.notFound)
	return mux
}

func (s *server) notFound(w http.ResponseWriter, r *http.Request) {
	s.log.Printf("%s %s -> 404 (not mocked)", r.Method, r.URL.RequestURI())
	http.NotFound(w, r)
}

// turn is what the mock answers to one request.
type turn int

const (
	turnText  turn = iota // a text answer
	turnTool              // a call to the shell tool
	turnStall             // one text delta, then silence
	turnThink             // keep-alives for a while, then a text answer
	turnPings             // keep-alives until the client leaves
)

func (t turn) String() string {
	return [...]string{"text", "tool call", "stall", "think", "pings"}[t]
}

// plan decides the answer from the shell tool the request offers ("" for
// none) and whether it already carries a tool result, and logs the request
// under label ("POST /v1/responses").
func (s *server) plan(label, model string, tools int, shellTool string, hasResult bool) (turn, string) {
	t, text := turnTool, ""
	switch {
	case shellTool == "" || s.scenario == "A":
		t, text = turnText, textHello
	case s.scenario == "C":
		t, text = turnStall, textStall
	case s.scenario == "T":
		t, text = turnThink, textHello
	case s.scenario == "P":
		t = turnPings
	case hasResult:
		t, text = turnText, textDone
	}
	s.log.Printf("%s model=%s tools=%d shell=%q tool_result=%t -> %s",
		label, model, tools, shellTool, hasResult, t)
	return t, text
}

// stall holds the response open, sending nothing, until the client leaves.
func (s *server) stall(ctx context.Context, label string) {
	start := time.Now()
	<-ctx.Done()
	s.log.Printf("%s: stalled stream closed by the client after %.1fs", label, time.Since(start).Seconds())
}

// hold sends only keep-alives (ping), one every pingEvery, for scenario
// T's think or, for P, until the client leaves; it reports whether the
// client is still there.
func (s *server) hold(label string, e *stream, t turn, ping func()) bool {
	if t != turnThink && t != turnPings {
		return true
	}
	start := time.Now()
	var end <-chan time.Time
	if t == turnThink {
		timer := time.NewTimer(s.think)
		defer timer.Stop()
		end = timer.C
	}
	tick := time.NewTicker(s.pingEvery)
	defer tick.Stop()
	for pings := 0; e.err == nil; {
		select {
		case <-end:
			s.log.Printf("%s: thought for %.1fs, %d keep-alives", label, time.Since(start).Seconds(), pings)
			return true
		case <-tick.C:
			ping()
			pings++
		case <-e.ctx.Done():
			e.err = e.ctx.Err()
		}
	}
	s.log.Printf("%s: stream of keep-alives closed by the client after %.1fs", label, time.Since(start).Seconds())
	return false
}

// label names a request in the log: "POST /v1/responses".
func label(r *http.Request) string { return r.Method + " " + r.URL.RequestURI() }

func (s *server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		s.log.Printf("%s %s -> 400 (%v)", r.Method, r.URL.RequestURI(), err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// deltas splits text the way the captured streams do: words, each after the
// first with its leading space.
func deltas(text string) []string {
	words := strings.Split(text, " ")
	for i := 1; i < len(words); i++ {
		words[i] = " " + words[i]
	}
	return words
}

func newID(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // Never fails (crypto/rand).
	return prefix + hex.EncodeToString(b)
}
