package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"cursor-wrap/stream"
)

// TestCursorHelp holds cursor-agent's flag table to the committed capture
// of its --help: cursor-agent cannot be installed here, so
// scripts/realagents.sh cannot ask it.
func TestCursorHelp(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("../../stream/testdata/cursor-agent-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^# cursor-agent --help of version \d{4}\.\d\d\.\d\d-[0-9a-f]+ `).Match(text) {
		t.Error("the capture does not open with the version it was taken from")
	}
	help, err := parseHelp(string(text))
	if err != nil || len(help) < 20 {
		t.Fatalf("read %d options from the capture: %v", len(help), err)
	}
	if problems := compare(stream.Cursor.Flags(), help); len(problems) > 0 {
		t.Errorf("stream/cursor.go's flag table disagrees with the capture:\n%s", strings.Join(problems, "\n"))
	}
}

// TestParseHelp reads each style of --help the agents print.
func TestParseHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		style, text string
		want        []stream.Flag
	}{
		{"commander", `Options:
  --add-dir <directories...>            Additional directories to allow tool
                                        access to
  --allowedTools, --allowed-tools <tools...>
      Comma or space-separated list of tool names to allow (e.g. "Bash(git *)
      Edit")
  --bare                                Minimal mode: skip hooks. Explicitly provide context
                                        --append-system-prompt[-file], --add-dir
  -d, --debug [filter]                  Enable debug mode
  --max-budget-usd <amount>             Maximum dollar amount

Commands:
  agents [options]                      Manage background agents
`, []stream.Flag{
			{Names: []string{"--add-dir"}, Arity: stream.Variadic},
			{Names: []string{"--allowedTools", "--allowed-tools"}, Arity: stream.Variadic},
			{Names: []string{"--bare"}, Arity: stream.NoValue},
			{Names: []string{"-d", "--debug"}, Arity: stream.OptionalValue},
			{Names: []string{"--max-budget-usd"}, Arity: stream.OneValue},
		}},
		{"clap", `Arguments:
  [PROMPT]
          Initial instructions for the agent

Options:
  -c, --config <key=value>
          Override a configuration value.
          
          Examples: - ` + "`-c model=\"o3\"`" + `

      --enable <FEATURE>
          Enable a feature (repeatable)

  -i, --image <FILE>...
          Optional image(s) to attach to the initial prompt

      --json
          Print events to stdout as JSONL
`, []stream.Flag{
			{Names: []string{"-c", "--config"}, Arity: stream.OneValue},
			{Names: []string{"--enable"}, Arity: stream.OneValue},
			{Names: []string{"-i", "--image"}, Arity: stream.Variadic},
			{Names: []string{"--json"}, Arity: stream.NoValue},
		}},
		{"yargs", `Positionals:
  message  message to send                                                     [array] [default: []]

Options:
  -h, --help         show help                                                             [boolean]
      --format       format: default (formatted) or json (raw JSON events)
                                          [string] [choices: "default", "json"] [default: "default"]
  -f, --file         file(s) to attach to message                                            [array]
  -u, --username     basic auth username (defaults to OPENCODE_SERVER_USERNAME or 'opencode')
                                                                                            [string]
      --port         port for the local server (defaults to random port if no value provided)
                                                                                            [number]
`, []stream.Flag{
			{Names: []string{"-h", "--help"}, Arity: stream.NoValue},
			{Names: []string{"--format"}, Arity: stream.OneValue},
			{Names: []string{"-f", "--file"}, Arity: stream.Variadic},
			{Names: []string{"-u", "--username"}, Arity: stream.OneValue},
			{Names: []string{"--port"}, Arity: stream.OneValue},
		}},
	} {
		got, err := parseHelp(tc.text)
		if err != nil || !slices.EqualFunc(got, tc.want, func(a, b stream.Flag) bool { return slices.Equal(a.Names, b.Names) && a.Arity == b.Arity }) {
			t.Errorf("%s: parseHelp = %+v, %v\nwant %+v", tc.style, got, err, tc.want)
		}
	}
}

// TestCompare: what realagents.sh fails on.
func TestCompare(t *testing.T) {
	t.Parallel()
	table := []stream.Flag{
		{Names: []string{"-p", "--print"}},
		{Names: []string{"--model"}, Arity: stream.OneValue},
		{Names: []string{"--resume"}, Arity: stream.OneValue},
		{Names: []string{"--secret"}, Arity: stream.OneValue, Hidden: true},
		{Names: []string{"--gone"}},
		{Names: []string{"--shown"}, Hidden: true},
	}
	help := []stream.Flag{
		{Names: []string{"-p", "--print"}},
		{Names: []string{"--model"}, Arity: stream.OneValue},
		{Names: []string{"--resume"}, Arity: stream.OptionalValue},
		{Names: []string{"--max-budget-usd"}, Arity: stream.OneValue},
		{Names: []string{"--shown"}},
	}
	got := compare(table, help)
	for _, want := range []string{
		"--resume: --help says an optional value, the table one value",
		"--max-budget-usd (one value): not in the table",
		"--shown: marked hidden, but --help prints it",
		"--gone: listed as printed by --help",
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("compare misses %q; it says:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 4 {
		t.Errorf("compare says %d things, want 4:\n%s", len(got), strings.Join(got, "\n"))
	}
}
