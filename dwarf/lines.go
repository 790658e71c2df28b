package dwarf

import (
	"github.com/rrmcp/rrmcp/symbols"

	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	stddwarf "debug/dwarf"
)

// lineTable is one unit's line program as a sorted row table.
type lineTable struct {
	files []string // DWARF file index -> full path ("" if unused)
	rows  []lineRow
	// subs are GDB's per-file tables (subfiles: the files of one name),
	// as indexes into rows without the sequence ends, in GDB's order of
	// a unit's symtabs: the unit's own file, then the others in the
	// order the line header names them. Where a line ends depends on it
	// (lineEnd).
	subs [][]int32
	// ends memoizes lineEnd by the index of the first row past the pc:
	// every pc between two row addresses has the same line end, and a
	// lookup goes through every subfile (a stop, each frame of a
	// backtrace, each step asks again at the same few places).
	endMu sync.Mutex
	ends  map[int]uint64
}

type lineRow struct {
	addr  uint64
	line  int32
	col   int32
	file  uint32
	flags uint8
}

const (
	rowStmt uint8 = 1 << iota
	rowEndSeq
	rowPrologueEnd
	// rowEndFile ends the range of its file's previous row where the line
	// program switches to another file (GDB's dwarf_finish_line marker):
	// it has no line.
	rowEndFile
)

// LineEntry is one position in the line table.
type LineEntry struct {
	Addr   uint64 // file address of the row
	File   string // full path
	Line   int
	Column int
	IsStmt bool
	// End is where the line ends as GDB's find_pc_line ends it, GDB's
	// step range (lineEnd): the next row of the same file or of one GDB
	// looks at after it, so a row of another file may start before End.
	End uint64
	// RowEnd is where the next row of any file starts: no row begins in
	// [Addr, RowEnd).
	RowEnd uint64
}

// fileName returns the path of file index i of the unit's line table.
func (u *unit) fileName(i int) string {
	files := u.fileTable()
	if i < 0 || i >= len(files) {
		return ""
	}
	return files[i]
}

// fileTable returns the file names of the unit's line-table header
// (without decoding the line program, unless that is already done).
func (u *unit) fileTable() []string {
	u.filesOnce.Do(func() {
		lr, err := u.img.dw.LineReader(u.entry)
		if err != nil || lr == nil {
			return
		}
		for _, f := range lr.Files() {
			name := ""
			if f != nil {
				name = f.Name
			}
			u.files = append(u.files, name)
		}
		if v5 := u.v5FileNames(); len(v5) == len(u.files) {
			u.files = v5
		}
	})
	if lt := u.linesIfBuilt(); lt != nil && len(lt.files) > len(u.files) {
		return lt.files // DW_LNE_define_file added some
	}
	return u.files
}

func (u *unit) linesIfBuilt() *lineTable {
	u.linesMu.Lock()
	defer u.linesMu.Unlock()
	return u.lines
}

// lineTable builds the unit's row table once.
func (u *unit) lineTable() *lineTable {
	u.linesOnce.Do(func() {
		lt, err := u.readLines()
		if err != nil {
			lt = &lineTable{}
		}
		u.linesMu.Lock()
		u.lines = lt
		u.linesMu.Unlock()
	})
	return u.lines
}

func (u *unit) readLines() (*lineTable, error) {
	lr, err := u.img.dw.LineReader(u.entry)
	if err != nil || lr == nil {
		return nil, fmt.Errorf("line table of %s: %w", u.name, err)
	}
	lt := &lineTable{}
	var le stddwarf.LineEntry
	fileIdx := map[*stddwarf.LineFile]uint32{}
	files := lr.Files()
	for i, f := range files {
		if f != nil {
			if _, dup := fileIdx[f]; !dup {
				fileIdx[f] = uint32(i)
			}
		}
	}
	// The rows are kept as GDB keeps them (dwarf2/read.c's
	// lnp_state_machine::record_line and buildsym's record_line): a
	// table per file, where a switch to another file ends the previous
	// file's range with a marker that deletes the previous file's rows
	// at the same address, a row that is not a statement and switches
	// files at an address that has a statement is ignored, and a row
	// that repeats the line of the previous one is dropped when the line
	// has had a non-zero discriminator. "The previous one" is GDB's
	// m_last_subfile and m_last_line: the file and line of the last row
	// kept, except that a DW_LNS_set_file makes the file the one that
	// was current before it, the file of the row before, even an
	// ignored one (handle_set_file). At -O2, with inlined code, this
	// decides which file:line an address has. The tables are merged at
	// the end; lookups (rowAt) treat each file apart.
	perFile := make(map[uint32][]lineRow)
	finish := func(file uint32, addr uint64, flags uint8) {
		rows := perFile[file]
		seen, last := false, int32(0)
		for len(rows) > 0 {
			r := rows[len(rows)-1]
			seen, last = true, r.line
			if r.addr != addr {
				break
			}
			rows = rows[:len(rows)-1]
		}
		if seen && last != 0 {
			rows = append(rows, lineRow{addr: addr, file: file, flags: flags})
		}
		perFile[file] = rows
	}
	var (
		haveSub    bool   // GDB's m_last_subfile is set (in this sequence)
		lastSub    uint32 // m_last_subfile
		lastLine   int32  // m_last_line
		havePrev   bool   // a row was seen in this sequence
		prevFile   uint32 // the file of the previous row, kept or not
		prevLine   int32  // its line
		lastAddr   uint64 // its address
		stmtAtAddr bool   // a statement row was seen at lastAddr
		lineDisc   bool   // the line has had a non-zero discriminator
		endSeqs    []lineRow
	)
	for {
		if err := lr.Next(&le); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("line table of %s: %w", u.name, err)
		}
		fi, ok := fileIdx[le.File]
		if !ok && le.File != nil {
			// DW_LNE_define_file (DWARF <5): the table grew
			files = lr.Files()
			for i, f := range files {
				if f == le.File {
					fi = uint32(i)
					fileIdx[f] = fi
				}
			}
		}
		if le.EndSequence {
			if haveSub {
				finish(lastSub, le.Address, rowEndFile)
			}
			endSeqs = append(endSeqs, lineRow{addr: le.Address, file: fi, flags: rowEndSeq})
			haveSub, havePrev, stmtAtAddr, prevLine, lineDisc = false, false, false, 0, false
			lastAddr = 0
			continue
		}
		line := int32(le.Line)
		switched := havePrev && fi != prevFile // a DW_LNS_set_file before this row
		if switched {
			lastSub, haveSub = prevFile, true
		}
		if line != prevLine || switched {
			lineDisc = le.Discriminator != 0
		} else {
			lineDisc = lineDisc || le.Discriminator != 0
		}
		havePrev, prevFile, prevLine = true, fi, line
		if le.Address != lastAddr {
			lastAddr, stmtAtAddr = le.Address, false
		}
		changed := !haveSub || fi != lastSub
		ignore := line == 0 || // GDB ignores line-0 rows; the previous line extends
			changed && haveSub && !le.IsStmt && stmtAtAddr
		stmtAtAddr = stmtAtAddr || le.IsStmt
		if ignore {
			continue
		}
		if changed && haveSub {
			finish(lastSub, le.Address, rowEndFile)
		}
		repeat := !changed && line == lastLine && lineDisc
		lastSub, haveSub, lastLine = fi, true, line
		if repeat {
			continue
		}
		r := lineRow{addr: le.Address, line: line, col: int32(le.Column), file: fi}
		if le.IsStmt {
			r.flags |= rowStmt
		}
		if le.PrologueEnd {
			r.flags |= rowPrologueEnd
		}
		perFile[fi] = append(perFile[fi], r)
	}
	lt.rows = endSeqs
	for _, rows := range perFile {
		lt.rows = append(lt.rows, rows...)
	}
	lt.files = make([]string, len(files))
	for i, f := range files {
		if f != nil {
			lt.files[i] = f.Name
		}
	}
	if v5 := u.fileTable(); u.version >= 5 && len(v5) == len(lt.files) {
		copy(lt.files, v5)
	}
	// By address; at one address the end of a sequence first (the next
	// sequence may start there), then each file's rows, its range ends
	// first (a sequence that ends where another one of the same file
	// starts; GDB's lte_is_less_than), then in their order.
	sort.SliceStable(lt.rows, func(i, j int) bool {
		a, b := lt.rows[i], lt.rows[j]
		if a.addr != b.addr {
			return a.addr < b.addr
		}
		if ae, be := a.flags&rowEndSeq != 0, b.flags&rowEndSeq != 0; ae != be {
			return ae
		}
		if a.file != b.file {
			return a.file < b.file
		}
		return a.flags&rowEndFile != 0 && b.flags&rowEndFile == 0
	})
	lt.subfiles(u.primaryFile())
	return lt, nil
}

// primaryFile is the path of the unit's own source file (DW_AT_name,
// under DW_AT_comp_dir where relative): GDB's main subfile, the unit's
// primary symtab.
func (u *unit) primaryFile() string {
	if u.name == "" || path.IsAbs(u.name) || u.compDir == "" {
		return path.Clean(u.name)
	}
	return path.Join(u.compDir, u.name)
}

// subfiles groups the rows by file name into GDB's subfiles (subs), the
// subfile of primary first, then in the order of the names' first
// indexes in the file table: the order in which GDB's dwarf_decode_lines
// makes a symtab for each file name, after which end_compunit_symtab
// moves the main subfile's to the front.
func (lt *lineTable) subfiles(primary string) {
	sub := make([]int, len(lt.files)) // file index -> subfile
	byName := map[string]int{}
	n := 0
	if primary != "." {
		byName[primary], n = 0, 1
	}
	for i, f := range lt.files {
		k, ok := byName[path.Clean(f)]
		if !ok {
			k, n = n, n+1
			byName[path.Clean(f)] = k
		}
		sub[i] = k
	}
	lt.subs = make([][]int32, n)
	for i, r := range lt.rows {
		if r.flags&rowEndSeq != 0 || int(r.file) >= len(sub) {
			continue
		}
		k := sub[r.file]
		lt.subs[k] = append(lt.subs[k], int32(i))
	}
}

// lineEnd is where GDB's find_pc_sect_line ends the line that holds pc,
// 0 if it finds none: its best_end, the next row after pc of a subfile
// looked at once the best row so far is known, subfile by subfile in
// GDB's order (lt.subs), capped at the first row of a subfile that
// starts after pc. A row of a subfile looked at before the row found
// does not end it: at -O2 a row of another file that is no statement
// may lie inside a line's range (a header's inlined code gcc moved up),
// and GDB's step steps over it.
//
// next is the index of the first row past pc, the memo's key.
func (lt *lineTable) lineEnd(pc uint64, next int) uint64 {
	lt.endMu.Lock()
	end, ok := lt.ends[next]
	lt.endMu.Unlock()
	if ok {
		return end
	}
	end = lt.findLineEnd(pc)
	lt.endMu.Lock()
	if lt.ends == nil {
		lt.ends = map[int]uint64{}
	}
	lt.ends[next] = end
	lt.endMu.Unlock()
	return end
}

// findLineEnd is lineEnd without the memo.
func (lt *lineTable) findLineEnd(pc uint64) uint64 {
	var best, bestEnd, alt uint64
	haveBest, haveAlt := false, false
	for _, rows := range lt.subs {
		if len(rows) == 0 {
			continue
		}
		k := sort.Search(len(rows), func(k int) bool { return lt.rows[rows[k]].addr > pc })
		if k == 0 {
			if a := lt.rows[rows[0]].addr; !haveAlt || a < alt {
				alt, haveAlt = a, true
			}
		} else if prev := lt.rows[rows[k-1]]; prev.line != 0 && (!haveBest || prev.addr > best) {
			best, haveBest = prev.addr, true
			if bestEnd <= best {
				bestEnd = 0
			}
		}
		if haveBest && k < len(rows) {
			if a := lt.rows[rows[k]].addr; a > best && (bestEnd == 0 || bestEnd > a) {
				bestEnd = a
			}
		}
	}
	switch {
	case !haveBest:
		return 0
	case bestEnd != 0 && (!haveAlt || bestEnd < alt):
		return bestEnd
	case haveAlt:
		return alt
	}
	return 0
}

// rowAt returns the index of the row covering pc, or -1: as GDB's
// find_pc_sect_line, the row with the greatest address at or below pc
// among the files whose table has a line there (a file whose last entry
// at or below pc ends its range does not count), preferring a statement
// row of that file at the same address.
func (lt *lineTable) rowAt(pc uint64) int {
	i := sort.Search(len(lt.rows), func(i int) bool { return lt.rows[i].addr > pc }) - 1
	var seen [8]uint32
	done := seen[:0] // files whose last entry at or below pc was seen (no allocation for a few)
	for ; i >= 0; i-- {
		r := lt.rows[i]
		if r.flags&rowEndSeq != 0 {
			return -1 // the start of pc's sequence passed without a line
		}
		if slices.Contains(done, r.file) {
			continue
		}
		done = append(done, r.file)
		if r.flags&rowEndFile == 0 {
			break
		}
	}
	if i < 0 {
		return -1
	}
	if lt.rows[i].flags&rowStmt == 0 {
		for j := i - 1; j >= 0 && lt.rows[j].addr == lt.rows[i].addr && lt.rows[j].flags&rowEndSeq == 0; j-- {
			if lt.rows[j].file == lt.rows[i].file && lt.rows[j].flags&rowStmt != 0 {
				return j
			}
		}
	}
	return i
}

// entryAt is the line of row i, rowAt's for pc, ending where GDB's
// find_pc_line ends it (lineEnd; where that finds no end, at the next
// row).
func (lt *lineTable) entryAt(i int, pc uint64) LineEntry {
	r := lt.rows[i]
	e := LineEntry{Addr: r.addr, Line: int(r.line), Column: int(r.col), IsStmt: r.flags&rowStmt != 0}
	if int(r.file) < len(lt.files) {
		e.File = lt.files[r.file]
	}
	next := i + 1
	for next < len(lt.rows) && lt.rows[next].addr <= r.addr {
		next++
	}
	if next < len(lt.rows) {
		e.RowEnd = lt.rows[next].addr
	}
	for next < len(lt.rows) && lt.rows[next].addr <= pc {
		next++ // (the rows between the one found and pc: a few)
	}
	if e.End = lt.lineEnd(pc, next); e.End <= r.addr {
		e.End = e.RowEnd
	}
	return e
}

// PCToLine returns the line-table position of the file address pc.
func (img *Image) PCToLine(pc uint64) (LineEntry, bool) {
	if u := img.unitFor(pc); u != nil {
		lt := u.lineTable()
		if i := lt.rowAt(pc); i >= 0 {
			return lt.entryAt(i, pc), true
		}
		return LineEntry{}, false
	}
	// units without address ranges (some assembler units) still have
	// line programs
	for _, u := range img.units {
		if len(u.ranges) == 0 {
			lt := u.lineTable()
			if i := lt.rowAt(pc); i >= 0 {
				return lt.entryAt(i, pc), true
			}
		}
	}
	return LineEntry{}, false
}

// Files returns the full paths of all source files named in line tables.
func (img *Image) Files() []string {
	if img.listUnits() != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, u := range img.units {
		for _, f := range u.fileTable() {
			if f != "" && !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// FileMatches reports whether the full path p names the file the user
// wrote as q (a location's FILE): equal, same base name when q has no slash, or a suffix of
// whole path components.
func FileMatches(p, q string) bool {
	if p == q {
		return true
	}
	if !strings.Contains(q, "/") {
		return path.Base(p) == q
	}
	q = path.Clean(q)
	return strings.HasSuffix(p, "/"+strings.TrimPrefix(q, "./"))
}

// LineAddr is one place a breakpoint on file:line goes.
type LineAddr struct {
	Addr uint64 // file address
	File string
	Line int // the line that has code (may be after the requested one)
	// Function is the concrete function the address is in.
	Function *Function
	// Inline is the name of the inlined function the address is in, ""
	// if the address is not in an inlined copy.
	Inline string
	// Block is the DW_TAG_inlined_subroutine DIE of the inlined copy that
	// is the breakpoint location's symbol (GDB's bp_location symbol, whose
	// block a stop there compares, not its name: InlineFrame.Offset), 0
	// where that symbol is the concrete function.
	Block stddwarf.Offset
}

// LineToAddrs resolves file:line the way GDB's "break FILE:LINE" does:
// every is_stmt row for that line, one per innermost block (so each
// inlined copy and each function gets one), the lowest address in each;
// when the line has no code, the next line that has. An address before
// the end of a function's prologue (its entry, or a cold part placed
// below it) is moved past the prologue, as GDB does.
func (img *Image) LineToAddrs(file string, line int) ([]LineAddr, error) {
	if img.listUnits() != nil || img.dw == nil {
		return nil, fmt.Errorf("line %s:%d: %w", file, line, ErrNotFound)
	}
	type cand struct {
		u   *unit
		row lineRow
	}
	var exact []cand
	best := 0
	var bestC []cand
	for _, u := range img.units {
		if !u.mentions(file) {
			continue
		}
		lt := u.lineTable()
		match := make([]bool, len(lt.files))
		for i, f := range lt.files {
			if f != "" && FileMatches(f, file) {
				match[i] = true
			}
		}
		for _, r := range lt.rows {
			if r.flags&rowStmt == 0 || r.flags&rowEndSeq != 0 || int(r.file) >= len(match) || !match[r.file] {
				continue
			}
			switch l := int(r.line); {
			case l == line:
				exact = append(exact, cand{u, r})
			case l > line && (best == 0 || l < best):
				best, bestC = l, []cand{{u, r}}
			case l > line && l == best:
				bestC = append(bestC, cand{u, r})
			}
		}
	}
	if len(exact) == 0 {
		exact = bestC
	}
	if len(exact) == 0 {
		return nil, fmt.Errorf("line %s:%d: %w", file, line, ErrNotFound)
	}
	sort.SliceStable(exact, func(i, j int) bool { return exact[i].row.addr < exact[j].row.addr })
	seen := map[any]bool{}
	var out []LineAddr
	for _, c := range exact {
		f := c.u.funcAt(c.row.addr)
		var block any = c.row.addr
		inl, inlBlock := "", stddwarf.Offset(0)
		if f != nil {
			chain := f.scopeChain(c.row.addr)
			block = f
			if len(chain) > 0 {
				block = chain[len(chain)-1]
			}
			for i := len(chain) - 1; i >= 0; i-- {
				if chain[i].Tag == stddwarf.TagInlinedSubroutine {
					// Named as the inlined frame is (InlineChain).
					name, linkage, _, _, _, _ := img.resolveDecl(chain[i].Offset)
					inl, inlBlock = c.u.displayName(name, linkage), chain[i].Offset
					break
				}
			}
		}
		// An address twice: an inline function of a header, kept once
		// by the linker, that every unit using it describes (its own
		// block each).
		dup := seen[block] || seen[c.row.addr]
		seen[block], seen[c.row.addr] = true, true
		if dup {
			continue
		}
		la := LineAddr{Addr: c.row.addr, File: c.u.lineTable().files[c.row.file], Line: int(c.row.line), Function: f, Inline: inl, Block: inlBlock}
		// GDB's skip_prologue_sal: an address before the end of the
		// prologue (the entry, or a .cold part placed below the function)
		// moves to the post-prologue address and its line, the outermost
		// call's where that is inside inlined calls (BreakpointAddr)
		if f != nil {
			if pc, le := img.BreakpointAddr(f); la.Addr < pc {
				la.Addr = pc
				if le.File != "" {
					la.File, la.Line = le.File, le.Line
				}
			}
		}
		out = append(out, la)
	}
	return out, nil
}

// BreakpointAddr returns where GDB's "break FUNCTION" puts a breakpoint on
// f: past the prologue, unless the unit is optimized gcc code whose
// location lists GDB trusts from the entry. The LineEntry is the line at
// that address, or, where a prologue was skipped to an address inside
// inlined calls, the line of the outermost call (GDB's skip_prologue_sal:
// "break resize" where limsize is inlined is at resize's line calling it,
// not inside limsize).
func (img *Image) BreakpointAddr(f *Function) (uint64, LineEntry) {
	pc := img.skipPrologue(f)
	le, _ := img.PCToLine(pc)
	if chain := f.InlineChain(pc); pc != f.Entry && len(chain) > 0 && chain[0].CallLine > 0 && chain[0].CallFile != "" {
		le.File, le.Line, le.Column = chain[0].CallFile, chain[0].CallLine, 0
	}
	return pc, le
}

// StepIntoAddr returns where GDB's step stops in f when it steps into
// it (infrun.c's handle_step_into_function): past the prologue as the
// architecture finds it (archSkipPrologue), continued to the end of the
// line it ends in. Unlike "break FUNCTION" (BreakpointAddr), GDB 13 does
// not read the line table's prologue_end marks here, and it trusts
// optimized gcc code's entry only there.
func (img *Image) StepIntoAddr(f *Function) uint64 {
	if f.cu == nil {
		return f.Entry
	}
	return img.toLineEnd(f, img.archSkipPrologue(f))
}

// skipPrologue implements GDB 13's skip_prologue_sal on amd64.
func (img *Image) skipPrologue(f *Function) uint64 {
	u := f.cu
	if u == nil {
		return f.Entry
	}
	if strings.HasPrefix(u.producer, "GNU ") && u.mayHaveLoclist() && u.indexDeep() == nil && u.hasLoclist {
		return f.Entry // locations_valid: GDB breaks at the entry
	}
	if pc, ok := img.prologueEndMark(f); ok {
		return pc
	}
	return img.toLineEnd(f, img.archSkipPrologue(f))
}

// prologueEndMark is GDB 13's skip_prologue_using_linetable: the first
// row from f's entry to its end marked prologue_end (clang writes them),
// in the table of the file of the entry's line only (at -O2 an inlined
// header's row can carry one too).
func (img *Image) prologueEndMark(f *Function) (uint64, bool) {
	lt := f.cu.lineTable()
	e := lt.rowAt(f.Entry)
	if e < 0 {
		return 0, false
	}
	file := lt.rows[e].file
	i := sort.Search(len(lt.rows), func(i int) bool { return lt.rows[i].addr >= f.Entry })
	for ; i < len(lt.rows) && f.contains(lt.rows[i].addr); i++ {
		if r := lt.rows[i]; r.flags&rowPrologueEnd != 0 && r.file == file {
			return r.addr, true
		}
	}
	return 0, false
}

// archSkipPrologue implements GDB 13's amd64_skip_prologue (and
// i386's): for a unit whose producer GDB takes for LLVM (its producer_is_llvm:
// "clang " or " F90 Flang " at the start, so not "Debian clang version"),
// the end of the prologue's lines (skip_prologue_using_sal); otherwise
// the address after [endbr64] push %rbp; mov %rsp,%rbp, or the entry of
// a function without them.
func (img *Image) archSkipPrologue(f *Function) uint64 {
	if p := f.cu.producer; strings.HasPrefix(p, "clang ") || strings.HasPrefix(p, " F90 Flang ") {
		if pc := img.prologueUsingLines(f); pc != 0 {
			return max(f.Entry, pc)
		}
	}
	return img.analyzePrologue(f.Entry)
}

// toLineEnd continues a prologue's end pc that is in the middle of a
// line to the end of that line, if it is still in f (GDB's
// skip_prologue_sal and handle_step_into_function both do).
func (img *Image) toLineEnd(f *Function, pc uint64) uint64 {
	if pc == f.Entry {
		return pc
	}
	lt := f.cu.lineTable()
	if j := lt.rowAt(pc); j >= 0 && lt.rows[j].addr != pc {
		if end := lt.entryAt(j, pc).End; end != 0 && f.contains(end) {
			return end
		}
	}
	return pc
}

// prologueUsingLines is GDB 13's skip_prologue_using_sal: the end of the
// entry's line, or of the lines after it with smaller line numbers (code
// the scheduler moved into the prologue), stopping at an inlined call or
// another file; the entry where a second row of the table starts there
// too (a prologue of no instruction); 0 for a function of one line.
func (img *Image) prologueUsingLines(f *Function) uint64 {
	lt := f.cu.lineTable()
	end := f.End()
	i := lt.rowAt(f.Entry)
	if i < 0 {
		return 0
	}
	sal := lt.entryAt(i, f.Entry)
	if sal.Line != 0 {
		// Two rows at the entry: a prologue of no instruction.
		if i+1 < len(lt.rows) {
			if n := lt.rows[i+1]; n.line != 0 && n.addr == f.Entry && n.file == lt.rows[i].file {
				return f.Entry
			}
		}
		if sal.End >= end {
			return 0
		}
		for sal.End < end {
			k := lt.rowAt(sal.End)
			if k < 0 {
				break
			}
			next := lt.entryAt(k, sal.End)
			if next.Line == 0 || next.Line >= sal.Line || next.File != sal.File || len(f.InlineChain(sal.End)) > 0 {
				break
			}
			sal = next
		}
	}
	if sal.End < end {
		return sal.End
	}
	return sal.Addr
}

// analyzePrologue recognizes [endbr64] push %rbp; mov %rsp,%rbp and
// returns the address after it, or entry for a frameless function.
func (img *Image) analyzePrologue(entry uint64) uint64 {
	if img.Is32Bit() {
		return img.analyzePrologue32(entry)
	}
	code := img.code(entry, 16)
	if len(code) < 8 {
		return entry
	}
	pc := entry
	if code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa {
		code, pc = code[4:], pc+4
	}
	if code[0] != 0x55 {
		return entry
	}
	switch {
	case code[1] == 0x48 && code[2] == 0x89 && code[3] == 0xe5, code[1] == 0x48 && code[2] == 0x8b && code[3] == 0xec:
		return pc + 4
	case code[1] == 0x89 && code[2] == 0xe5, code[1] == 0x8b && code[2] == 0xec:
		return pc + 3
	}
	return entry
}

// code reads n bytes of the image's file contents at file address addr.
func (img *Image) code(addr uint64, n int) []byte {
	for _, p := range img.exe.Progs {
		if p.Type != 1 /* PT_LOAD */ || addr < p.Vaddr || addr >= p.Vaddr+p.Filesz {
			continue
		}
		n = int(min(uint64(n), p.Vaddr+p.Filesz-addr))
		b := make([]byte, n)
		m, _ := p.ReadAt(b, int64(addr-p.Vaddr))
		return b[:m]
	}
	return nil
}

// FunctionBreakpoints resolves "break NAME" like GDB: the breakpoint
// address (after the prologue) of every concrete function named name
// (FuncsByName matching) and the entry of every inlined copy, sorted by
// address, one per address.
//
// A name with a parameter list ("P::Push(const char*, const char*)")
// names the overloads whose parameters are those, compared in GDB's
// canonical spelling (const char* is char const*), either as the
// demangled linkage name spells them (typedefs resolved:
// std::__cxx11::basic_string<char, ...> const&) or as the source does
// (typedefs by name: std::string const&, size_type), both of which GDB
// accepts; a function without a linkage name (C) matches by its name
// alone.
func (img *Image) FunctionBreakpoints(name string) []LineAddr {
	want, byParams := canonicalParams(name)
	var types *TypeReader // read only where a parameter list needs the source's spelling
	takes := func(linkage string, decl stddwarf.Offset) bool {
		if !byParams || linkage == "" {
			return true
		}
		if have, ok := canonicalParams(symbols.Demangle(linkage)); ok && have == want {
			return true
		}
		if types == nil {
			types = NewTypeReader(img.dw)
		}
		have, ok := paramSpellingAt(decl, types)
		return ok && have == want
	}
	var out []LineAddr
	seen := map[uint64]bool{}
	for _, f := range img.FuncsByName(name) {
		if !takes(f.LinkageName, f.Offset) {
			continue
		}
		pc, le := img.BreakpointAddr(f)
		if !seen[pc] {
			seen[pc] = true
			out = append(out, LineAddr{Addr: pc, File: le.File, Line: le.Line, Function: f})
		}
	}
	for _, c := range img.InlinedCopies(name) {
		if seen[c.Entry] || byParams && !takes(img.OriginLinkage(c), c.Origin) {
			continue
		}
		seen[c.Entry] = true
		// The copy is the location's symbol; of copies nested in one
		// another at one address the outermost (InlinedCopies' order), as
		// GDB's linespec keeps the first of its symbols, sorted by where
		// they were made (compare_symbols), per address.
		la := LineAddr{Addr: c.Entry, Function: c.Caller, Block: c.Offset}
		if le, ok := img.PCToLine(c.Entry); ok {
			la.File, la.Line = le.File, le.Line
		}
		if chain := c.Caller.InlineChain(c.Entry); len(chain) > 0 {
			la.Inline = chain[len(chain)-1].Name
		}
		out = append(out, la)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// LinesWithCode returns the sorted line numbers of file (matched like
// LineToAddrs) that have is_stmt rows, i.e. the lines a breakpoint can
// be set on; useful to suggest the nearest line when one has no code.
func (img *Image) LinesWithCode(file string) []int {
	if img.listUnits() != nil || img.dw == nil {
		return nil
	}
	seen := map[int]bool{}
	for _, u := range img.units {
		if !u.mentions(file) {
			continue
		}
		lt := u.lineTable()
		for _, r := range lt.rows {
			if r.flags&rowStmt != 0 && r.flags&rowEndSeq == 0 && int(r.file) < len(lt.files) && FileMatches(lt.files[r.file], file) {
				seen[int(r.line)] = true
			}
		}
	}
	out := make([]int, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// mentions reports whether the unit's file table names file (as
// fileMatches compares names), so its line table may hold its lines.
func (u *unit) mentions(file string) bool {
	for _, f := range u.fileTable() {
		if f != "" && FileMatches(f, file) {
			return true
		}
	}
	return false
}
