package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: rr unavailable: no PMU\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: got 1, want 2\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestC"}`,
		`{"Action":"fail","Package":"p","Elapsed":0.5}`,
		`not json: a build error`,
	}, "\n")
	var out, log bytes.Buffer
	if rc := report(strings.NewReader(in), &out, &log); rc != 1 {
		t.Errorf("rc = %d, want 1", rc)
	}
	for _, want := range []string{
		"FAIL\tp\t0.500s",
		"SKIP p TestB: b_test.go:9: rr unavailable: no PMU",
		"== FAIL p TestC",
		"got 1, want 2",
		"not json: a build error",
		"tests: 1 passed, 1 failed, 1 skipped",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(log.String(), "=== RUN   TestA") {
		t.Errorf("log lacks test output:\n%s", log.String())
	}
}

func TestReportNoTests(t *testing.T) {
	var out bytes.Buffer
	if rc := report(strings.NewReader(`{"Action":"skip","Package":"p"}`), &out, &out); rc != 1 {
		t.Errorf("rc = %d, want 1 when no test ran", rc)
	}
}
