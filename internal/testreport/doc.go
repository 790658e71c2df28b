// Command testreport turns `go test -json` on its standard input into the
// report `make test` prints: one line per package (as go test prints it),
// the output of every failed test, every skipped test with its reason (a
// skip is never a pass), and a closing line "tests: N passed, N failed, N
// skipped". The full output of every test goes to the file named by -log.
// It exits 1 if any test or package failed, or if no test ran at all.
//
// Usage: go test -json ./... | go run ./internal/testreport -log .test.log
package main
