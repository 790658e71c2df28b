// Package linespec turns the locations GDB's break command takes into
// addresses: FUNCTION (past the prologue of every function of that name
// and at the entry of each of its inlined copies, in the program, then in
// its loaded libraries, then by ELF symbol; FUNCTION(PARAMS) only the
// overloads with those parameters; FILE:FUNCTION only those whose code is
// in that source file), FILE:LINE and LINE (every
// address the line table gives the line, in the program, then in a
// library), and *ADDRESS. It reads the images of an inferior.Inferior;
// evaluating an *ADDRESS expression and knowing the current file of a
// bare LINE are the caller's (Parse says which form a location is).
//
// A location that names nothing gets an error naming close names
// (CloseNames, the one rule for "did you mean" in rrmcp).
package linespec
