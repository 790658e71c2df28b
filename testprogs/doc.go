// Package testprogs holds the C and C++ programs with planted bugs that the
// rest of rrmcp debugs: the fixtures of every integration test and of
// `make demo`. The sources are in src/, `make -C testprogs` builds them into
// build/ (at -O0 -g, and some also at -O2 -g as <name>-O2), and README.md
// lists each program with its bug, root cause and symptom.
//
// The package has no Go code; its test builds and runs every program,
// checks its symptom, and checks that each source's header comment (root
// cause and crash site as file:line, compile command) still matches the
// code, so the comments an agent is shown cannot rot.
package testprogs
