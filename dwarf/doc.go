// Package dwarf reads the debug information of C and C++ programs on
// x86-64 Linux: line tables, functions with qualified C++ names, inlined
// call chains, call-frame information for unwinding, the locations of
// variables, and the type model (types*.go: C/C++ types with GDB's
// ptype/whatis spelling).
//
// It also holds the typed view of target data that everything above it
// shares: an [Object] is a type plus where its bytes are, a [ValueEnv]
// reads objects (bytes, members, elements, pointees, C strings), and a
// [FrameScope] turns a frame's variables, registers and types into
// Objects; it is the one scope every evaluation of the server runs in.
// The packages built on it:
//
//   - [github.com/rrmcp/rrmcp/dwarf/cexpr] parses C/C++ expressions;
//   - [github.com/rrmcp/rrmcp/dwarf/eval] evaluates them in a scope
//     (eval.EvalExpr(ctx, frameScope, "p->x"));
//   - [github.com/rrmcp/rrmcp/dwarf/format] prints Objects as GDB does,
//     with the libstdc++ and Go pretty printers.
//
// This package imports none of them.
//
// It is built on Go's debug/elf and debug/dwarf (imported as stddwarf) and
// on delve's pkg/dwarf readers where they work: frame for .eh_frame and
// .debug_frame CFI (FDEs are sorted here before lookup), loclist for
// location lists, regnum for DWARF register numbers and godwarf.LoadTree
// for function scope trees. DWARF location expressions are evaluated by
// our own stack machine (locexpr.go), because delve's op package lacks
// DW_OP_entry_value, addrx, TLS, implicit_pointer and the typed stack and
// panics on some input (op serves as an oracle in the fuzz test). Line
// tables are indexed here from the stdlib
// LineReader; delve's line package is not used (too slow on big CUs).
//
// # The seam to the target
//
// The package never talks to a debugger server. It sees a stopped target
// only through values the caller supplies:
//
//   - [ReadMemoryFunc] reads target memory (production: the session's
//     block cache over RSP; tests: the PT_LOAD segments of a core file).
//   - [Regs] holds register values keyed by DWARF register number
//     (regnum.AMD64_Rax ... AMD64_Fs_base ...). Only registers marked valid
//     are known. In caller frames, registers the CFI does not mention keep
//     the callee's value (GDB's rule); undefined ones are invalid.
//   - [ModuleFunc] maps a pc to the [Image] that covers it and the image's
//     load bias, so unwinding can cross into shared libraries (libc has
//     .eh_frame even without DWARF). Nil means "the main image only".
//
// All of these are bundled in [Target]. [Image.Unwind] turns a Target plus
// the registers of the stopped thread into a [Backtrace] of [Frame]s; each
// Frame knows
// its pc, CFA, registers, function, file:line and whether it is an inlined
// frame, and [Frame.Scope] answers variable and register lookups for the
// expression evaluator.
//
// # Using it
//
//	img, _ := dwarf.Open("/path/prog")            // or LoadSplit(exe, debugFile)
//	addrs, _ := img.LineToAddrs("prog.c", 42)       // break FILE:LINE, GDB's choice of locations
//	for _, f := range img.FuncsByName("geo::area") { // break FUNCTION
//		pc, line := img.BreakpointAddr(f)           // after the prologue, as GDB
//	}
//	le, _ := img.PCToLine(pc - bias)               // pc -> file:line:column
//	bt, _ := img.Unwind(ctx, &dwarf.Target{ReadMemory: mem, Modules: mods}, regs, bias, dwarf.UnwindOptions{})
//	for _, f := range bt.Frames {                  // GDB's "bt", inlined and tail-call frames included
//		f.Params(); f.Locals()                     // GDB's "info args" / "info locals"
//		v, _ := f.Scope().Lookup("x")              // block, function, CU statics, globals (C++ lookup)
//		b, _ := v.Location.Read(mem, size)         // bytes of the value (size from the type)
//		e, _ := f.EntryValue(v)                    // GDB's x@entry, from call-site info
//		sc := dwarf.NewFrameScope(ctx, f, dwarf.ScopeOptions{Target: t, Types: types})
//		o, _ := sc.Local(ctx, "x")                 // x as a typed Object
//		n, _ := sc.Values().Int(o)                 // (package format prints it, eval evaluates in sc)
//	}
//
// Names mean different things to a breakpoint and to an expression, as
// in GDB: [Image.FuncsByName] answers any "::"-suffix ("area" is every
// method named area), while a frame's scope finds what C++ name lookup
// finds from the frame's function: the name itself or the name in one of
// its enclosing namespaces and classes, anonymous namespaces transparent
// ("area" from main names no method).
//
// Other entry points: [LoadFrom] reuses DWARF that package symbols has
// memory-mapped; [Image.Global] reads a global outside a frame;
// [Frame.LocateDIE] evaluates the target of an implicit pointer;
// [Image.InlinedCopies] lists the inlined instances of a function for
// breakpoints; [Image.SymbolAt] names pcs without DWARF (ELF symbols,
// NAME@plt). For the vDSO, build an Image with elf.NewFile over target
// memory and [LoadSplit].
//
// Indexes are lazy: Open memory-maps the file (package symbols) and reads
// the ELF and section headers; debug sections are read in place. A
// compile unit is indexed (functions, declarations, CU-level variables)
// the first time a pc in it or a name lookup needs it, its line table the
// first time a line lookup does, and a function's scope tree the first
// time a frame in it is inspected. [Image.FuncsByName] indexes only the
// units that ELF symbols whose names contain the looked-up name point to
// (every unit for operators, or without a .symtab);
// [Image.InlinedCopies] walks the bodies of only the units whose
// abbreviations allow inlined calls and whose bytes can name the
// function. Listing every function ([Image.Functions]) and looking up
// global variables index every unit. Function bodies are only walked for inlined-call
// sites and location-list use ("deep" index) when a name lookup of inlined
// functions or GDB's prologue rule needs them.
//
// # What follows GDB, on purpose
//
//   - Line tables: rows with line 0 are dropped, repeated rows are kept
//     unless the line had a non-zero discriminator, and a pc maps to the
//     last row at or below it, preferring an is_stmt row at the same
//     address (GDB 13's buildsym and find_pc_sect_line).
//   - "break FILE:LINE": every is_stmt row of the line (or of the next line
//     with code), the lowest address per innermost block, prologue skipped
//     at function entries. "break FUNCTION": GDB's amd64 prologue analysis
//     (push %rbp; mov %rsp,%rbp; then to the next line), prologue_end
//     markers when present, and no skipping in optimized gcc units that use
//     location lists (GDB's locations_valid).
//   - Names: qualified C++ names from DWARF (namespaces, classes,
//     DW_AT_specification, DW_AT_abstract_origin); for C, an unmangled
//     DW_AT_linkage_name is shown ("__GI_raise"), as GDB does.
//   - Backtraces stop at main unless PastMain; main then has no caller, so
//     entry values of its parameters are optimized out (GDB's
//     get_prev_frame). Tail calls found through DW_AT_call_tail_call sites
//     produce tail-call frames. Registers a frame's CFI does not mention
//     keep the callee's value ("same value"), like GDB.
//
// # Address spaces
//
// All lookups on an Image take and return file addresses (the addresses in
// the ELF file, i.e. runtime pc minus load bias). Frames carry runtime
// addresses; they apply the bias themselves.
//
// # Errors
//
// Lookups that find nothing return [ErrNotFound]. Locations that the
// compiler did not keep are reported as [ErrOptimizedOut]; DWARF the
// package cannot evaluate is [ErrUnsupported]. Malformed debug info yields
// a *[FormatError] naming the section and offset.
//
// # Security
//
// Debug information is untrusted input. Decoders bound their work (step
// limits on expression evaluation and unwinding) and recover from panics
// in the delve readers, returning errors instead. They do not bound memory
// use for pathological but well-formed input.
//
// # Concurrency
//
// An *Image may be used by several goroutines at once: its lazy indexes are
// built under a lock. Frames and Regs are plain values owned by the caller.
package dwarf
