// Command casecover counts the conditions of each switch case in a Go
// coverage profile, for scripts/mutation.sh. Go's cover tool counts a case
// clause from its colon on, so a case's conditions lie in no block: gremlins
// reports every mutant there NOT COVERED and never tests it
// (go-gremlins/gremlins#298), though the switch ran. A case's conditions
// are evaluated when the switch is reached (those after the one that
// matched are not, and a mutant there lives, as one should), so each gets
// the count of the block the switch statement is in.
//
//	casecover PROFILE
//
// It appends those blocks to PROFILE; run from the root of the module
// whose packages the profile covers.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: casecover PROFILE")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "casecover:", err)
		os.Exit(1)
	}
}

func run(profile string) error {
	module, err := modulePath("go.mod")
	if err != nil {
		return err
	}
	text, err := os.ReadFile(profile)
	if err != nil {
		return err
	}
	blocks, err := parseProfile(string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", profile, err)
	}
	var added []block
	for _, file := range filesOf(blocks) {
		local, ok := strings.CutPrefix(file, module+"/")
		if !ok {
			continue // Another module's package: not ours to read.
		}
		src, err := os.ReadFile(local)
		if err != nil {
			return err
		}
		cases, err := caseBlocks(file, src, blocks)
		if err != nil {
			return err
		}
		added = append(added, cases...)
	}
	f, err := os.OpenFile(profile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, b := range added {
		fmt.Fprintln(w, b)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// block is one line of a coverage profile: a span of a file, its number of
// statements and how many times it ran.
type block struct {
	file                string
	startLine, startCol int
	endLine, endCol     int
	statements, count   int
}

func (b block) String() string {
	return fmt.Sprintf("%s:%d.%d,%d.%d %d %d", b.file, b.startLine, b.startCol, b.endLine, b.endCol, b.statements, b.count)
}

// holds says whether the block spans the position.
func (b block) holds(p token.Position) bool {
	after := p.Line > b.startLine || p.Line == b.startLine && p.Column >= b.startCol
	before := p.Line < b.endLine || p.Line == b.endLine && p.Column <= b.endCol
	return after && before
}

func parseProfile(text string) ([]block, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "mode: ") {
		return nil, errors.New("not a coverage profile: no mode line")
	}
	var blocks []block
	for _, line := range lines[1:] {
		colon := strings.LastIndexByte(line, ':')
		if colon < 0 {
			return nil, fmt.Errorf("not a profile line: %q", line)
		}
		b := block{file: line[:colon]}
		if _, err := fmt.Sscanf(line[colon+1:], "%d.%d,%d.%d %d %d", &b.startLine, &b.startCol, &b.endLine, &b.endCol, &b.statements, &b.count); err != nil {
			return nil, fmt.Errorf("not a profile line: %q", line)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// filesOf lists the files a profile covers, each once, in profile order.
func filesOf(blocks []block) []string {
	var files []string
	seen := map[string]bool{}
	for _, b := range blocks {
		if !seen[b.file] {
			seen[b.file] = true
			files = append(files, b.file)
		}
	}
	return files
}

// caseBlocks gives a block to the conditions of each case of every switch
// in src (the file the profile names file) that ran: from the case keyword
// to its colon, with the count of the switch statement's own block.
func caseBlocks(file string, src []byte, blocks []block) ([]block, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var added []block
	ast.Inspect(f, func(n ast.Node) bool {
		s, ok := n.(*ast.SwitchStmt)
		if !ok {
			return true
		}
		count := countAt(blocks, file, fset.Position(s.Switch))
		if count == 0 {
			return true
		}
		for _, stmt := range s.Body.List {
			clause := stmt.(*ast.CaseClause)
			if len(clause.List) == 0 {
				continue // default: no conditions.
			}
			from, to := fset.Position(clause.Case), fset.Position(clause.Colon)
			added = append(added, block{file, from.Line, from.Column, to.Line, to.Column, 1, count})
		}
		return true
	})
	return added, nil
}

// countAt is how many times the block holding the position ran.
func countAt(blocks []block, file string, p token.Position) int {
	count := 0
	for _, b := range blocks {
		if b.file == file && b.holds(p) {
			count = max(count, b.count)
		}
	}
	return count
}

// modulePath reads the module's path from its go.mod.
func modulePath(gomod string) (string, error) {
	text, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(text)) {
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(path), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}
