package linespec

import (
	"context"
	stddwarf "debug/dwarf"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/errkind"
	"github.com/rrmcp/rrmcp/internal/inferior"
)

// Form is the form of a location.
type Form int

const (
	Function Form = iota // NAME, FILE:NAME
	FileLine             // FILE:LINE
	Line                 // LINE, in the current source file
	Address              // *EXPRESSION
)

// Spec is a parsed location.
type Spec struct {
	Form Form
	Name string // Function: the function's name
	File string // FileLine; Function: the source file it is in ("" any)
	Line int    // FileLine, Line
	Expr string // Address: the expression after '*'
}

// Parse reads a location: *EXPR, FILE:LINE (the last colon, so that
// C:\x.c:3 and ns::f are read right), LINE, FILE:FUNCTION (a single
// colon after a file name with an extension or a directory: t.c:helper,
// src/a.cpp:ns::f) or a function name. A file or function name may be
// quoted, as GDB's linespecs allow ('a.c':12, 'ns::f(int)').
func Parse(loc string) (Spec, error) {
	loc = strings.TrimSpace(loc)
	switch {
	case loc == "":
		return Spec{}, errkind.Argf("location", "is empty")
	case strings.HasPrefix(loc, "*"):
		return Spec{Form: Address, Expr: strings.TrimSpace(loc[1:])}, nil
	}
	if i := strings.LastIndex(loc, ":"); i >= 0 {
		file, lineStr := loc[:i], loc[i+1:]
		if n, err := strconv.Atoi(lineStr); err == nil && !strings.HasSuffix(file, ":") {
			return Spec{Form: FileLine, File: unquote(file), Line: n}, nil
		}
	}
	if n, err := strconv.Atoi(loc); err == nil {
		return Spec{Form: Line, Line: n}, nil
	}
	if file, fn, ok := splitFileFunction(loc); ok {
		return Spec{Form: Function, File: unquote(file), Name: unquote(fn)}, nil
	}
	return Spec{Form: Function, Name: unquote(loc)}, nil
}

// unquote strips the quotes around a name ('a.c', "f"), if any.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// splitFileFunction splits FILE:FUNCTION at its first single colon (not
// one of a "::"), where what comes before looks like a file: it has a
// '/' or a '.' (a C++ scope has neither).
func splitFileFunction(loc string) (file, fn string, ok bool) {
	for i := 0; i < len(loc); i++ {
		if loc[i] != ':' {
			continue
		}
		if i+1 < len(loc) && loc[i+1] == ':' {
			i++ // a scope's "::"
			continue
		}
		file, fn = strings.TrimSpace(loc[:i]), strings.TrimSpace(loc[i+1:])
		if file == "" || fn == "" || !strings.ContainsAny(file, "./") || strings.ContainsAny(file, "<(") {
			return "", "", false
		}
		return file, fn, true
	}
	return "", "", false
}

// Result is what a location stands for: its addresses (run-time) and the
// function, file and line of the first.
type Result struct {
	Addrs    []uint64
	Function string
	File     string
	Line     int
	// Symbols holds per address the symbol of GDB's breakpoint location
	// there (bp_location's symbol): for a line (ResolveLine) the
	// innermost function, inlined copies included, at the line's first
	// address; for a function (ResolveFunction) the function, or the
	// inlined copy whose entry the address is. A stop at the address
	// shows the inlined calls that start there down to that symbol's
	// block (stopped_by_user_bp_inline_frame).
	Symbols []Symbol
}

// Symbol is a breakpoint location's symbol (GDB's bp_location symbol).
type Symbol struct {
	// Name is the function's name.
	Name string
	// Block is the DW_TAG_inlined_subroutine DIE where the symbol is an
	// inlined copy (dwarf.InlineFrame.Offset names the same block), 0
	// where it is the concrete function. GDB compares the block, not the
	// name: a function inlined into itself has levels of one name.
	Block stddwarf.Offset
}

// ResolveFunction returns the addresses where GDB's "break NAME" stops:
// the program's functions of that name (past the prologue, and every
// inlined copy's entry), else its ELF symbol, else the same in each
// loaded library, and the library's ELF symbols of that name (glibc's
// malloc is an alias of __libc_malloc: past the prologue of the function
// it aliases). The error, where none is found, matches errkind.NotFound
// and names close names.
//
// With a file (FILE:FUNCTION), only the functions of that name whose
// code is in that source file count, as GDB's linespec; they need debug
// information.
func ResolveFunction(ctx context.Context, inf *inferior.Inferior, file, name string) (Result, error) {
	var r Result
	if file != "" {
		r.addFunctionIn(inf.Img, inf.Bias, file, name)
		if as := inf.ReloadAddressSpace(ctx); as != nil {
			for _, mod := range as.Modules() {
				if img := inf.LibImage(mod.Path); img != nil && img != inf.Img {
					r.addFunctionIn(img, mod.Bias, file, name)
				}
			}
		}
		if len(r.Addrs) > 0 {
			return r, nil
		}
		return Result{}, fmt.Errorf("no function named %q in a source file %q (FILE:FUNCTION needs debug information): %w", name, file, errkind.NotFound)
	}
	if r.addFunction(inf.Img, inf.Bias, name) {
		return r, nil
	}
	if a, ok := inf.Img.SymbolAddr(name); ok {
		r.Addrs, r.Function, r.Symbols = []uint64{a + inf.Bias}, name, []Symbol{{Name: name}}
		return r, nil
	}
	if as := inf.ReloadAddressSpace(ctx); as != nil {
		// Shared libraries: their DWARF (past the prologue, like the
		// main program, and every inlined copy), then, as GDB's minimal
		// symbols, their ELF symbols at other addresses: ld.so's DWARF
		// has inlined copies of a malloc, libc's malloc is an ELF alias
		// of __libc_malloc.
		for _, mod := range as.Modules() {
			img := inf.LibImage(mod.Path)
			if img == nil || img == inf.Img {
				continue
			}
			r.addFunction(img, mod.Bias, name)
		}
		if locs, err := as.LookupName(name); err == nil {
			for _, sl := range locs {
				a := sl.Symbol.Addr + sl.Module.Bias
				// An alias of a function with DWARF (glibc's malloc is
				// __libc_malloc): past its prologue, as GDB does.
				if img := inf.LibImage(sl.Module.Path); img != nil {
					if f := img.FuncAt(sl.Symbol.Addr); f != nil && f.Entry == sl.Symbol.Addr {
						pc, le := img.BreakpointAddr(f)
						a = pc + sl.Module.Bias
						if r.File == "" {
							r.File, r.Line = le.File, le.Line
						}
					}
				}
				if !slices.Contains(r.Addrs, a) {
					r.Addrs = append(r.Addrs, a)
					r.Symbols = append(r.Symbols, Symbol{Name: name})
				}
			}
		}
		if len(r.Addrs) > 0 {
			if r.Function == "" {
				r.Function = name
			}
			return r, nil
		}
	}
	hint := SuggestFunction(inf.Img, name)
	if hint == "" {
		hint = " in the program or its loaded shared libraries (for a library loaded later with dlopen, set it once the library is loaded)"
	}
	return Result{}, fmt.Errorf("no function named %q%s: %w", name, hint, errkind.NotFound)
}

// addFunction adds the addresses where GDB's "break NAME" stops in img:
// past the prologue of every function named name and at the entry of
// every inlined copy (one breakpoint, several locations, as GDB's 1.1,
// 1.2). It reports whether it found any.
func (r *Result) addFunction(img *dwarf.Image, bias uint64, name string) bool {
	return r.addFunctionIn(img, bias, "", name)
}

// addFunctionIn is addFunction of the places in source file file ("":
// anywhere).
func (r *Result) addFunctionIn(img *dwarf.Image, bias uint64, file, name string) bool {
	las := img.FunctionBreakpoints(name)
	if file != "" {
		las = slices.DeleteFunc(las, func(la dwarf.LineAddr) bool { return !dwarf.FileMatches(la.File, file) })
	}
	for _, la := range las {
		r.Addrs = append(r.Addrs, la.Addr+bias)
		fn := name // an inlined copy: la.Function is its caller
		if la.Block == 0 && la.Function != nil {
			fn = la.Function.Name
		}
		r.Symbols = append(r.Symbols, Symbol{Name: fn, Block: la.Block})
		if r.Function == "" {
			r.File, r.Line, r.Function = la.File, la.Line, fn
		}
	}
	return len(las) > 0
}

// ResolveLine returns the addresses of line n of file: in the program,
// else in the first loaded library whose line table has code there. The
// error, where there is none, matches errkind.NotFound (an argument error
// for a line below 1).
func ResolveLine(ctx context.Context, inf *inferior.Inferior, file string, n int) (Result, error) {
	if n <= 0 {
		return Result{}, errkind.Argf("location", "line numbers start at 1")
	}
	las, err := inf.Img.LineToAddrs(file, n)
	bias := inf.Bias
	if err != nil || len(las) == 0 {
		// A source file of a shared library?
		if as := inf.ReloadAddressSpace(ctx); as != nil {
			for _, mod := range as.Modules() {
				if img := inf.LibImage(mod.Path); img != nil && img != inf.Img {
					if la, err := img.LineToAddrs(file, n); err == nil && len(la) > 0 {
						las, bias = la, mod.Bias
						break
					}
				}
			}
		}
	}
	if len(las) == 0 {
		return Result{}, fmt.Errorf("no code at %s:%d%s: %w", file, n, SuggestFile(inf.Img, file), errkind.NotFound)
	}
	var r Result
	for _, la := range las {
		r.Addrs = append(r.Addrs, la.Addr+bias)
		sym := Symbol{Name: la.Inline, Block: la.Block}
		if sym.Name == "" && la.Function != nil {
			sym.Name = la.Function.Name
		}
		r.Symbols = append(r.Symbols, sym)
	}
	r.File, r.Line, r.Function = las[0].File, las[0].Line, r.Symbols[0].Name
	return r, nil
}

// SuggestFunction is "; did you mean f, g?" with the functions of img
// whose names are close to name (CloseNames, at most 5), or "".
func SuggestFunction(img *dwarf.Image, name string) string {
	var names []string
	for _, f := range img.Functions() {
		names = append(names, f.Name)
	}
	cands := CloseNames(name, names)
	if len(cands) == 0 {
		return ""
	}
	if len(cands) > 5 {
		cands = cands[:5]
	}
	return "; did you mean " + strings.Join(cands, ", ") + "?"
}

// SuggestFile says why file:line found no code: the file is known and the
// line has none, or which source files there are (at most 8, outside
// /usr); "" for an image without debug information.
func SuggestFile(img *dwarf.Image, file string) string {
	if img == nil {
		return ""
	}
	base := filepath.Base(file)
	var cands []string
	for _, f := range img.Files() {
		if filepath.Base(f) == base {
			return " (the file is known, but that line has no code; try a nearby line)"
		}
		if strings.Contains(f, "/usr/") {
			continue
		}
		cands = append(cands, filepath.Base(f))
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	if len(cands) > 8 {
		cands = cands[:8]
	}
	if len(cands) == 0 {
		return ""
	}
	return " (source files: " + strings.Join(cands, ", ") + ")"
}

// CloseNames are the names, sorted and each once, close to name: within
// an edit distance of a quarter of its length (at least 1) of their last
// component (after "::"), ignoring case, or, for a name of three letters
// or more, containing it.
func CloseNames(name string, names []string) []string {
	low := strings.ToLower(name)
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		short := n
		if i := strings.LastIndex(n, "::"); i >= 0 {
			short = n[i+2:]
		}
		if editDistance(strings.ToLower(short), low) <= max(1, len(name)/4) || len(name) >= 3 && strings.Contains(strings.ToLower(n), low) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
