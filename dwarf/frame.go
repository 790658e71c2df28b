package dwarf

// Frame is one frame of a backtrace, numbered like GDB's: frame 0 is the
// innermost. An inlined call yields its own Frame (Inlined true) sharing
// PC, CFA and Regs with the physical frame it was inlined into.
type Frame struct {
	Level int
	// PC is the runtime pc: the stop pc for frame 0 (and frames inlined
	// into it), the return address for callers.
	PC uint64
	// CFA is the canonical frame address of the physical frame.
	CFA uint64
	// Regs are the registers of this frame as far as unwinding knows them.
	Regs Regs
	// Image and Bias locate the module the pc is in (nil if unknown).
	Image *Image
	Bias  uint64
	// Function is the concrete DWARF function the pc is in (for an
	// inlined frame: the function the call was inlined into); nil if the
	// pc has no DWARF.
	Function *Function
	// Inline describes the inlined call for an inlined frame, else nil.
	Inline *InlineFrame
	// Name is the function's qualified name, or the ELF symbol's
	// demangled name without DWARF, or "" if nothing names the pc.
	Name string
	// File, Line and Column are where this frame is: the pc's line for
	// the innermost frame at a pc, the call site for frames that an
	// inlined call is inlined into.
	File   string
	Line   int
	Column int
	// Inlined is true for a frame of an inlined call.
	Inlined bool
	// Signal is true for a signal trampoline frame (__restore_rt).
	Signal bool

	phys   *physFrame
}
