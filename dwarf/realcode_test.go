package dwarf

import (
	stddwarf "debug/dwarf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// Real-code layouts of testdata/opaque (a header declaring
// `typedef struct Obj Obj;`, obj.c defining it, main.c using it): gcc and
// clang (DWARF 5 both; clang writes absolute file names and directory 0 =
// the compilation directory), compiled in the source tree and out of tree
// the way CMake does (from a build directory, one file named relatively,
// one absolutely).
type layout struct {
	name, cc  string
	outOfTree bool
	flags     []string
}

var realLayouts = []layout{
	{"gcc-intree", "gcc", false, nil},
	{"gcc-outoftree", "gcc", true, nil},
	{"gcc-dwarf4-outoftree", "gcc", true, []string{"-gdwarf-4"}},
	{"clang-intree", "clang", false, nil},
	{"clang-outoftree", "clang", true, nil},
	{"clang-dwarf4-outoftree", "clang", true, []string{"-gdwarf-4"}},
}

// buildLayout copies testdata/opaque into a temporary tree and compiles it
// as l says. It returns the binary and the source directory.
func buildLayout(t *testing.T, l layout) (bin, src string) {
	t.Helper()
	testenv.NeedTool(t, l.cc)
	root := t.TempDir()
	src = filepath.Join(root, "src")
	build := filepath.Join(root, "build")
	for _, d := range []string{src, build} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"opaque.h", "obj.c", "main.c"} {
		b, err := os.ReadFile(filepath.Join("testdata", "opaque", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"-g", "-O0"}, l.flags...)
	dir := src
	if l.outOfTree {
		dir = build
		args = append(args, "../src/obj.c", filepath.Join(src, "main.c"))
	} else {
		args = append(args, "obj.c", "main.c")
	}
	bin = filepath.Join(build, "prog")
	cmd := exec.Command(l.cc, append(args, "-o", bin)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", l.cc, args, err, out)
	}
	return bin, src
}

// TestSourcePathsExist checks that every file name the line tables give,
// every function's declaration file and the file of every function's
// first line is a file that exists, under each layout, and that GDB finds
// the same file for main.
func TestSourcePathsExist(t *testing.T) {
	for _, l := range realLayouts {
		t.Run(l.name, func(t *testing.T) {
			bin, src := buildLayout(t, l)
			img := openImage(t, bin)
			ours := map[string]bool{}
			for _, f := range img.Files() {
				if !strings.HasPrefix(f, filepath.Dir(src)) {
					continue // system headers
				}
				ours[filepath.Base(f)] = true
				if _, err := os.Stat(f); err != nil {
					t.Errorf("line-table file %q does not exist: %v", f, err)
				}
			}
			for _, want := range []string{"obj.c", "main.c", "opaque.h"} {
				if !ours[want] {
					t.Errorf("no line-table file %s under %s (files: %q)", want, src, img.Files())
				}
			}
			for _, f := range img.Functions() {
				if f.DeclFile == "" || !strings.HasPrefix(f.DeclFile, "/") {
					t.Errorf("function %s: declaration file %q is not a full path", f.Name, f.DeclFile)
				} else if _, err := os.Stat(f.DeclFile); err != nil {
					t.Errorf("function %s: declaration file %q does not exist", f.Name, f.DeclFile)
				}
				le, ok := img.PCToLine(f.Entry)
				if !ok {
					t.Errorf("function %s: no line at its entry %#x", f.Name, f.Entry)
					continue
				}
				if _, err := os.Stat(le.File); err != nil {
					t.Errorf("function %s: line-table file %q does not exist", f.Name, le.File)
				}
			}
			// GDB's fullname of main's file is the path we give.
			out := runGDB(t, bin, "list main", "info source")
			var gdbFull string
			for _, line := range strings.Split(out, "\n") {
				if s, ok := strings.CutPrefix(line, "Located in "); ok {
					gdbFull = filepath.Clean(s)
				}
			}
			var oursMain string
			for _, f := range img.Functions() {
				if f.Name == "main" {
					oursMain = f.DeclFile
				}
			}
			if gdbFull == "" || gdbFull != oursMain {
				t.Errorf("main's file: ours %q, GDB %q (gdb said:\n%s)", oursMain, gdbFull, out)
			}
		})
	}
}

// TestOpaqueTypeAcrossUnits checks that a variable whose type is only
// declared in its compile unit (main.c: `Obj *current`) resolves to the
// definition in obj.c for sizeof, members and ptype, as GDB resolves it.
func TestOpaqueTypeAcrossUnits(t *testing.T) {
	for _, l := range realLayouts {
		t.Run(l.name, func(t *testing.T) {
			bin, _ := buildLayout(t, l)
			img := openImage(t, bin)
			tr := NewTypeReader(img.DWARF())
			var cur Type
			r := img.DWARF().Reader()
			for {
				e, err := r.Next()
				if err != nil || e == nil {
					break
				}
				if n, _ := e.Val(stddwarf.AttrName).(string); e.Tag == stddwarf.TagVariable && n == "current" {
					off, _ := e.Val(stddwarf.AttrType).(stddwarf.Offset)
					if cur, err = tr.Type(off); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
			if cur == nil {
				t.Fatal("no variable current")
			}
			ptr, ok := Resolve(cur).(*PointerType)
			if !ok {
				t.Fatalf("current has type %s, want a pointer", cur)
			}
			st, ok := Resolve(ptr.Elem).(*StructType)
			if !ok || st.Incomplete {
				t.Fatalf("*current resolves to %T %v (incomplete: %v), want the definition of struct Obj", Resolve(ptr.Elem), Resolve(ptr.Elem), ok && st.Incomplete)
			}
			var names []string
			for _, f := range st.Fields {
				names = append(names, f.Name)
			}
			if got := strings.Join(names, ","); got != "id,name,next" {
				t.Errorf("members of *current: %s, want id,name,next", got)
			}
			if h := st.MembersHint(); h != " (struct Obj has: id, name, next)" {
				t.Errorf("no-member hint: %q", h)
			}
			out := runGDB(t, bin, "print sizeof(*current)", "ptype current", "print sizeof(struct Obj)", "whatis (Obj *)0")
			wantPtype := "type = " + PtypeString(cur, nil, Naming{})
			if !strings.Contains(normValueWS(out), normValueWS(wantPtype)) {
				t.Errorf("ptype current: ours\n%s\nGDB said:\n%s", wantPtype, out)
			}
			if size := ptr.Elem.Size(); !strings.Contains(out, "$1 = "+strconv.FormatInt(size, 10)+"\n") {
				t.Errorf("sizeof(*current): ours %d, GDB said:\n%s", size, out)
			}
			tagged, err := tr.LookupType("struct Obj")
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := tagged.(*StructType); !ok || tagged.Size() != ptr.Elem.Size() {
				t.Errorf("LookupType(struct Obj) = %T size %d, want the struct (size %d), not the typedef", tagged, tagged.Size(), ptr.Elem.Size())
			}
		})
	}
}

func normValueWS(s string) string { return strings.Join(strings.Fields(s), " ") }
