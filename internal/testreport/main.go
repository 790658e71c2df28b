package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type key struct{ pkg, test string }

func main() {
	logPath := flag.String("log", "", "write the full test output to this file")
	flag.Parse()
	var log io.Writer = io.Discard
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
		defer f.Close()
		log = f
	}
	os.Exit(report(os.Stdin, os.Stdout, log))
}

func report(in io.Reader, out, log io.Writer) int {
	output := map[key]*strings.Builder{}
	var passed, failed, skipped int
	var failures, skips []key
	pkgFailed := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Build errors and the like arrive as plain text.
			fmt.Fprintln(out, sc.Text())
			fmt.Fprintln(log, sc.Text())
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			io.WriteString(log, e.Output)
			b := output[k]
			if b == nil {
				b = &strings.Builder{}
				output[k] = b
			}
			b.WriteString(e.Output)
		case "pass", "fail", "skip":
			if e.Test == "" { // the package's own result
				switch e.Action {
				case "pass":
					fmt.Fprintf(out, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
				case "fail":
					pkgFailed = true
					fmt.Fprintf(out, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
					if b := output[k]; b != nil && passed+failed == 0 {
						fmt.Fprint(out, indent(b.String()))
					}
				case "skip":
					fmt.Fprintf(out, "?   \t%s\t[no test files]\n", e.Package)
				}
				continue
			}
			switch e.Action {
			case "pass":
				passed++
			case "fail":
				failed++
				failures = append(failures, k)
			case "skip":
				skipped++
				skips = append(skips, k)
			}
		}
	}
	if len(skips) > 0 {
		fmt.Fprintf(out, "\n== %d skipped tests (NOT passes) and why:\n", len(skips))
		sort.Slice(skips, func(i, j int) bool { return skips[i].pkg+skips[i].test < skips[j].pkg+skips[j].test })
		for _, k := range skips {
			fmt.Fprintf(out, "  SKIP %s %s: %s\n", short(k.pkg), k.test, skipReason(output[k]))
		}
	}
	for _, k := range failures {
		fmt.Fprintf(out, "\n== FAIL %s %s\n", short(k.pkg), k.test)
		if b := output[k]; b != nil {
			fmt.Fprint(out, indent(tail(b.String(), 60)))
		}
	}
	fmt.Fprintf(out, "\ntests: %d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 || pkgFailed || passed == 0 {
		return 1
	}
	return 0
}

// skipReason is the last line a skipped test logged before "--- SKIP".
func skipReason(b *strings.Builder) string {
	if b == nil {
		return "(no reason given)"
	}
	var reason string
	for _, l := range strings.Split(b.String(), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		reason = t
	}
	if reason == "" {
		return "(no reason given)"
	}
	return reason
}

func short(pkg string) string {
	return strings.TrimPrefix(pkg, "github.com/rrmcp/rrmcp/")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… (%d earlier lines in the log)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n") + "\n"
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}
