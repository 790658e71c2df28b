package gdbdiff

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// stopKind is what makes a stop.
type stopKind int

const (
	stopBreak  stopKind = iota // break LOCATION [@N]
	stopWatch                  // watch EXPR [@N]
	stopSignal                 // signal SIGNAME
)

// stopSpec is one row of testdata/stops.txt:
//
//	prog | id | stop | expr; expr; ...
//
// stop is "break FUNC", "break FILE:LINE", "watch GLOBAL" (each with an
// optional "@N", the N-th hit, default 1) or "signal SIGNAME" (the first
// stop with that signal).
type stopSpec struct {
	Prog  string
	ID    string
	Kind  stopKind
	Where string // location, watched expression or signal name
	Hit   int
	Exprs []string
	Line  int // line in stops.txt
}

func (s *stopSpec) String() string { return s.Prog + "/" + s.ID }

// loadStops reads the stops table at path (the test fails on an error) and
// groups its stops by program: progs in the order of each program's first
// stop, byProg its stops in table order.
func loadStops(t *testing.T, path string) (specs []*stopSpec, progs []string, byProg map[string][]*stopSpec) {
	t.Helper()
	specs, err := parseStops(path)
	if err != nil {
		t.Fatal(err)
	}
	byProg = map[string][]*stopSpec{}
	for _, sp := range specs {
		if byProg[sp.Prog] == nil {
			progs = append(progs, sp.Prog)
		}
		byProg[sp.Prog] = append(byProg[sp.Prog], sp)
	}
	return specs, progs, byProg
}

// parseStops reads a stops table.
func parseStops(path string) ([]*stopSpec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*stopSpec
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sp, err := parseStop(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		sp.Line = n
		if seen[sp.String()] {
			return nil, fmt.Errorf("%s:%d: duplicate stop %s", path, n, sp)
		}
		seen[sp.String()] = true
		out = append(out, sp)
	}
	return out, sc.Err()
}

func parseStop(line string) (*stopSpec, error) {
	parts := strings.SplitN(line, "|", 4) // expressions may hold '|'
	if len(parts) < 3 {
		return nil, fmt.Errorf("want 'prog | id | stop | exprs', got %q", line)
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	sp := &stopSpec{Prog: parts[0], ID: parts[1], Hit: 1}
	if sp.Prog == "" || sp.ID == "" {
		return nil, fmt.Errorf("empty program or id in %q", line)
	}
	stop := parts[2]
	if at := strings.LastIndex(stop, "@"); at >= 0 {
		n, err := strconv.Atoi(strings.TrimSpace(stop[at+1:]))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad hit number in %q", stop)
		}
		sp.Hit, stop = n, strings.TrimSpace(stop[:at])
	}
	verb, arg, _ := strings.Cut(stop, " ")
	sp.Where = strings.TrimSpace(arg)
	switch verb {
	case "break":
		sp.Kind = stopBreak
	case "watch":
		sp.Kind = stopWatch
	case "signal":
		sp.Kind = stopSignal
		if sp.Hit != 1 {
			return nil, fmt.Errorf("signal stops take no hit number: %q", stop)
		}
	default:
		return nil, fmt.Errorf("unknown stop %q (want break, watch or signal)", stop)
	}
	if sp.Where == "" {
		return nil, fmt.Errorf("%s needs an argument", verb)
	}
	if len(parts) == 4 {
		for e := range strings.SplitSeq(parts[3], ";") {
			if e = strings.TrimSpace(e); e != "" {
				sp.Exprs = append(sp.Exprs, e)
			}
		}
	}
	return sp, nil
}
