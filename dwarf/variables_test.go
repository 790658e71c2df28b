package dwarf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	stddwarf "debug/dwarf"
)

// intType reports whether the DIE at off (through typedefs and
// qualifiers) is a signed or unsigned integer type, and its size.
func intType(img *Image, off stddwarf.Offset) (size int, signed, ok bool) {
	for i := 0; i < 8 && off != 0; i++ {
		r := img.DWARF().Reader()
		r.Seek(off)
		e, err := r.Next()
		if err != nil || e == nil {
			return 0, false, false
		}
		switch e.Tag {
		case stddwarf.TagTypedef, stddwarf.TagConstType, stddwarf.TagVolatileType:
			off, _ = e.Val(stddwarf.AttrType).(stddwarf.Offset)
			continue
		case stddwarf.TagBaseType:
			enc, _ := e.Val(stddwarf.AttrEncoding).(int64)
			sz, _ := e.Val(stddwarf.AttrByteSize).(int64)
			if enc == 0x5 || enc == 0x7 { // DW_ATE_signed, unsigned
				return int(sz), enc == 0x5, true
			}
		}
		return 0, false, false
	}
	return 0, false, false
}

var entryRe = regexp.MustCompile(`(\w+)@entry=(<optimized out>|-?\w+)`)

var gdbVarRe = regexp.MustCompile(`(?m)^([\w@]+) = (.*)$`)

// gdbVars parses "name = value" lines; the first occurrence of a name
// wins (gdb lists inner blocks first).
func gdbVars(s string) (names []string, vals map[string]string) {
	vals = map[string]string{}
	for _, m := range gdbVarRe.FindAllStringSubmatch(s, -1) {
		if _, dup := vals[m[1]]; !dup {
			names = append(names, m[1])
			vals[m[1]] = m[2]
		}
	}
	return names, vals
}

// TestFrameVariablesMatchGDB compares, at each stop and in every frame of
// the program itself, the names of "info args"/"info locals" and the
// values of integer variables (or their being optimized out) with gdb.
func TestFrameVariablesMatchGDB(t *testing.T) {
	stops := []string{"sink", "stop_here", "stop_in_handler"}
	var extra []string
	for i := 0; i < 7; i++ {
		extra = append(extra, fmt.Sprintf("frame %d", i),
			fmt.Sprintf("echo @@ARGS%d\\n", i), "info args",
			fmt.Sprintf("echo @@LOCALS%d\\n", i), "info locals",
			"set print entry-values both", fmt.Sprintf("echo @@ENTRY%d\\n", i), fmt.Sprintf("frame %d", i), "set print entry-values default",
			fmt.Sprintf("echo @@END%d\\n", i))
	}
	cxxStops := []string{"geo::Circle::area", "twice<double>", "checked"}
	progs := []struct {
		cc, src, opt string
		stops        []string
	}{
		{"gcc", "sample.c", "-O0", stops}, {"gcc", "sample.c", "-O2", stops}, {"gcc", "sample.c", "-O2 -gdwarf-4", stops},
		// a .constprop clone whose dropped parameter is DW_OP_GNU_parameter_ref
		{"gcc", "params.c", "-O2", []string{"stop_pr"}},
		{"g++", "shapes.cpp", "-O0", cxxStops}, {"g++", "shapes.cpp", "-O2", cxxStops},
	}
	for _, prog := range progs {
		opt, stops := prog.opt, prog.stops
		bin := buildTestProg(t, prog.cc, prog.src, append([]string{"-g"}, strings.Fields(opt)...)...)
		img := openImage(t, bin)
		dumps := stopAndDump(t, bin, stops, extra...)
		compared, values, entries := 0, 0, 0
		for si, d := range dumps {
			bt, err := img.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range bt.Frames {
				if f.Image == nil || f.Function == nil || f.Level > 6 || f.Signal {
					continue
				}
				where := fmt.Sprintf("%s %s #%d %s", opt, stops[si], f.Level, f.Name)
				entryVals := map[string]string{}
				for _, m := range entryRe.FindAllStringSubmatch(between(d.out, fmt.Sprintf("@@ENTRY%d", f.Level), "@@"), -1) {
					entryVals[m[1]+"@entry"] = m[2]
				}
				for _, p := range f.Params(t.Context()) {
					want, ok := entryVals[p.Name+"@entry"]
					if !ok {
						continue
					}
					ev, err := f.EntryValue(t.Context(), p)
					size, signed, isInt := intType(f.Image, p.TypeOff)
					switch {
					case strings.HasPrefix(want, "<optimized out>"):
						if err == nil {
							t.Errorf("%s %s@entry = %v, gdb <optimized out>", where, p.Name, ev.Location)
						}
					case err != nil:
						t.Errorf("%s %s@entry: %v, gdb %s", where, p.Name, err, want)
					case isInt:
						entries++
						if got := intString(ev.Location.Bytes, size, signed); got != want {
							t.Errorf("%s %s@entry = %s, gdb %s", where, p.Name, got, want)
						}
					}
				}
				for _, kind := range []string{"ARGS", "LOCALS"} {
					seg := between(d.out, fmt.Sprintf("@@%s%d", kind, f.Level), "@@")
					names, vals := gdbVars(seg)
					var vars []Variable
					if kind == "ARGS" {
						vars = f.Params(t.Context())
					} else {
						vars = f.Locals(t.Context())
					}
					var got []string
					seen := map[string]bool{}
					for _, v := range vars {
						if !seen[v.Name] {
							got = append(got, v.Name)
							seen[v.Name] = true
						}
					}
					if strings.Join(got, ",") != strings.Join(names, ",") {
						t.Errorf("%s %s: got %v, gdb %v\n%s", where, kind, got, names, seg)
						continue
					}
					for _, v := range vars {
						if v.Shadowed {
							continue
						}
						compared++
						want := vals[v.Name]
						if strings.HasPrefix(want, "<optimized out>") {
							if v.Location.Kind != LocOptimizedOut {
								t.Errorf("%s %s: location %v, gdb <optimized out> (err %v)", where, v.Name, v.Location, v.LocErr)
							}
							continue
						}
						size, signed, ok := intType(img, v.TypeOff)
						if !ok {
							continue
						}
						b, err := v.Location.Read(t.Context(), d.core.read, size)
						if err != nil {
							t.Errorf("%s %s: read %v: %v (LocErr %v), gdb %s", where, v.Name, v.Location, err, v.LocErr, want)
							continue
						}
						s := intString(b, size, signed)
						values++
						if testing.Verbose() && v.Name == "unused_k" {
							t.Logf("%s unused_k = %s (%v)", where, s, v.Location)
						}
						if s != want {
							t.Errorf("%s %s = %s (%v), gdb %s", where, v.Name, s, v.Location, want)
						}
					}
				}
			}
		}
		t.Logf("%s %s: %d variables compared, %d integer values, %d entry values", prog.src, opt, compared, values, entries)
		if values < 3 {
			t.Errorf("%s: only %d integer values compared", opt, values)
		}
	}
}

// TestGlobalsAndTLS reads globals, a file static and a __thread variable
// at a stop and compares with the values the program had.
func TestGlobalsAndTLS(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		bin := buildTestProg(t, "gcc", "sample.c", "-g", opt)
		img := openImage(t, bin)
		d := stopAndDump(t, bin, []string{"stop_here"}, "print counter", "print file_static", "print tls_var", "print sink_total")[0]
		bt, err := img.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bias := bt.Frames[0].Bias
		scope := bt.Frames[0].Scope()
		m := regexp.MustCompile(`\$\d+ = (.+)`).FindAllStringSubmatch(d.out, -1)
		if len(m) != 4 {
			t.Fatalf("gdb printed %d values:\n%s", len(m), d.out)
		}
		for idx, name := range []string{"counter", "file_static", "tls_var", "sink_total"} {
			want := m[idx][1]
			v, err := scope.Lookup(t.Context(), name)
			if err != nil {
				t.Errorf("%s %s: %v", opt, name, err)
				continue
			}
			b, err := v.Location.Read(t.Context(), d.core.read, 4)
			if want == "<optimized out>" {
				if !errors.Is(err, ErrOptimizedOut) {
					t.Errorf("%s %s: read %v, %v; gdb <optimized out>", opt, name, b, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s: %v (%v)", opt, name, err, v.LocErr)
				continue
			}
			got := int32(binary.LittleEndian.Uint32(b))
			if strconv.Itoa(int(got)) != want {
				t.Errorf("%s %s = %d, gdb %s (location %v)", opt, name, got, want, v.Location)
			}
			if want := map[string]VarKind{"counter": VarGlobal, "file_static": VarStatic, "tls_var": VarGlobal, "sink_total": VarGlobal}[name]; v.Kind != want {
				t.Errorf("%s %s: kind %v, want %v", opt, name, v.Kind, want)
			}
		}
		// Global lookup outside a frame (no registers: TLS must fail
		// cleanly, plain globals work).
		if v, err := img.Global(t.Context(), "counter", d.core.target(t), nil, bias); err != nil || v.Location.Kind != LocAddress {
			t.Errorf("Global(counter) = %v, %v", v.Location, err)
		}
		if v, err := img.Global(t.Context(), "tls_var", d.core.target(t), nil, bias); err == nil && v.LocErr == nil {
			t.Errorf("Global(tls_var) without registers = %v, want an error", v.Location)
		} else if err == nil && !errors.Is(v.LocErr, ErrUnsupported) {
			t.Errorf("Global(tls_var) without registers: %v, want ErrUnsupported", v.LocErr)
		}
		if _, err := img.Global(t.Context(), "no_such_var", nil, nil, 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("Global(no_such_var) error %v, want ErrNotFound", err)
		}
	}
}

// TestScopeLookup looks names up from inner blocks outwards, including a
// parameter, a block local, a function static, a file static and a
// global, and registers by GDB name.
func TestScopeLookup(t *testing.T) {
	bin := buildTestProg(t, "gcc", "sample.c", "-g", "-O0")
	img := openImage(t, bin)
	d := stopAndDump(t, bin, []string{"stop_here"}, "frame 1", "print inner", "print local", "print depth", "frame 2", "print calls")[0]
	bt, err := img.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	leaf, recurse := bt.Frames[1], bt.Frames[2]
	if leaf.Name != "leaf" || recurse.Name != "recurse" {
		t.Fatalf("frames %s, %s", leaf.Name, recurse.Name)
	}
	vals := regexp.MustCompile(`\$\d+ = (-?\d+)`).FindAllStringSubmatch(d.out, -1)
	if len(vals) != 4 {
		t.Fatalf("gdb output:\n%s", d.out)
	}
	for i, tt := range []struct {
		f    *Frame
		name string
		kind VarKind
	}{{leaf, "inner", VarLocal}, {leaf, "local", VarLocal}, {leaf, "depth", VarParam}, {recurse, "calls", VarStatic}} {
		v, err := tt.f.Scope().Lookup(t.Context(), tt.name)
		if err != nil {
			t.Errorf("Lookup(%s): %v", tt.name, err)
			continue
		}
		b, err := v.Location.Read(t.Context(), d.core.read, 4)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := strconv.Itoa(int(int32(binary.LittleEndian.Uint32(b)))); got != vals[i][1] || v.Kind != tt.kind {
			t.Errorf("%s = %s (%v), gdb %s (want kind %v)", tt.name, got, v.Kind, vals[i][1], tt.kind)
		}
		if lv, err := tt.f.LocateDIE(t.Context(), v.Offset); err != nil || lv.Location.String() != v.Location.String() {
			t.Errorf("LocateDIE(%s) = %v, %v; want %v", tt.name, lv.Location, err, v.Location)
		}
	}
	if _, err := leaf.Scope().Lookup(t.Context(), "shadow"); !errors.Is(err, ErrNotFound) {
		t.Errorf("main's local visible from leaf: %v", err)
	}
	if v, err := leaf.Scope().Lookup(t.Context(), "counter"); err != nil || v.Kind != VarGlobal {
		t.Errorf("Lookup(counter) = %+v, %v", v, err)
	}
	if pc, ok := leaf.Scope().Register("$pc"); !ok || pc != leaf.PC {
		t.Errorf("$pc = %#x, %v; frame pc %#x", pc, ok, leaf.PC)
	}
	if sp, ok := bt.Frames[0].Scope().Register("rsp"); !ok || sp != d.core.regs.SP() {
		t.Errorf("$rsp = %#x, %v", sp, ok)
	}
	if _, ok := leaf.Scope().Register("rax"); !ok {
		t.Errorf("$rax in frame 1: GDB treats unsaved registers as same value")
	}
}

// intString formats the first size bytes of b as GDB prints an integer.
func intString(b []byte, size int, signed bool) string {
	var buf [8]byte
	copy(buf[:], b[:min(size, len(b))])
	u := binary.LittleEndian.Uint64(buf[:])
	if signed {
		return strconv.FormatInt(int64(u<<(64-8*size))>>(64-8*size), 10)
	}
	if size < 8 {
		u &= 1<<(8*size) - 1
	}
	return strconv.FormatUint(u, 10)
}

// TestMaxFramesKeepsLocals: a backtrace cut by MaxFrames still gives its
// last frame a CFA (gcc's frame base) and a caller (entry values).
func TestMaxFramesKeepsLocals(t *testing.T) {
	bin := buildTestProg(t, "gcc", "sample.c", "-g", "-O2")
	img := openImage(t, bin)
	d := stopAndDump(t, bin, []string{"stop_here"})[0]
	full, err := img.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n < len(full.Frames); n++ {
		cut, err := img.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{MaxFrames: n})
		if err != nil || len(cut.Frames) != n || cut.Stop != "max frames" {
			t.Fatalf("MaxFrames %d: %d frames, stop %q, %v", n, len(cut.Frames), cut.Stop, err)
		}
		last, ref := cut.Frames[n-1], full.Frames[n-1]
		if last.CFA != ref.CFA {
			t.Errorf("MaxFrames %d: CFA %#x, want %#x", n, last.CFA, ref.CFA)
		}
		a, b := append(last.Params(t.Context()), last.Locals(t.Context())...), append(ref.Params(t.Context()), ref.Locals(t.Context())...)
		for i := range b {
			if a[i].Location.String() != b[i].Location.String() {
				t.Errorf("MaxFrames %d: %s at %v, want %v", n, a[i].Name, a[i].Location, b[i].Location)
			}
		}
	}
}

// TestHandMadeFrame: a Frame built from registers alone (no Unwind) can
// still look up variables; nothing panics without memory or caller.
func TestHandMadeFrame(t *testing.T) {
	bin := buildTestProg(t, "gcc", "sample.c", "-g", "-O0")
	img := openImage(t, bin)
	f := img.FuncsByName("leaf")[0]
	pc, _ := img.BreakpointAddr(f)
	var regs Regs
	regs.Set(16, pc)
	regs.Set(7, 0x7ffe0000)
	fr := &Frame{PC: pc, Regs: regs, Image: img, Function: f, CFA: 0x7ffe0100}
	v, err := fr.Scope().Lookup(t.Context(), "depth")
	if err != nil || v.Location.Kind != LocAddress || v.Kind != VarParam {
		t.Fatalf("Lookup(depth) = %+v, %v", v, err)
	}
	if _, err := fr.EntryValue(t.Context(), v); !errors.Is(err, ErrOptimizedOut) {
		t.Errorf("EntryValue without a caller: %v", err)
	}
	if ls := fr.Locals(t.Context()); len(ls) != 1 || ls[0].Name != "local" {
		t.Errorf("locals %+v, want only local (inner's block starts later)", ls)
	}
	if _, err := (&Frame{}).Scope().Lookup(t.Context(), "x"); err == nil {
		t.Error("lookup in an empty frame succeeded")
	}
}
