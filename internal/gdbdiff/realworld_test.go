package gdbdiff

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/gdbmi"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// The real-world differential: real open-source programs from Debian
// source packages (realworld/Makefile builds them into realworld/build),
// compared with GDB at every stop of testdata/realworld_stops.txt through
// the session (the path the server runs): backtrace, frame 0's variables,
// and expressions chosen mechanically by -regen-realworld from GDB's
// variable objects at each stop (every local and argument, each child one
// level down: struct members, pointer targets, array elements; a cast of
// each scalar). The test prints
//
//	real-world-differential: N stops, M agree; expressions E/T agree
//
// and fails on a difference not listed with its reason in
// testdata/realworld_known.txt.

var regenRealWorld = flag.Bool("regen-realworld", false, "rewrite testdata/realworld_stops.txt: expressions from GDB's variable objects at the stops of testdata/realworld_points.txt")

// realArgs are the programs' command lines (run in realworld/build).
var realArgs = map[string][]string{
	"lua": {"-e", "local t = {} for i = 1, 12 do t[i] = ('x'):rep(i) .. i end local s = table.concat(t, ',') print(#s, s:sub(1, 20))"},
}

const (
	realStops  = "testdata/realworld_stops.txt"
	realPoints = "testdata/realworld_points.txt"
	realKnown  = "testdata/realworld_known.txt"
	// maxExprsPerStop bounds one stop's generated expressions.
	maxExprsPerStop = 40
	// maxMemPerStop bounds its memory reads (x:), made beside them.
	maxMemPerStop = 5
	// maxTypesPerStop bounds its ptype and whatis pairs (t:, w:).
	maxTypesPerStop = 8
)

var realSummary struct {
	sync.Mutex
	ran                  bool
	stops, agree         int
	exprAgree, exprTotal int
}

// realProg returns the path of a built real-world program, skipping (or
// failing in CI) when realworld/ was not built.
func realProg(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(testenv.Root(t), "internal", "gdbdiff", "realworld", "build", name)
	if _, err := os.Stat(p); err != nil {
		if testenv.InCI() {
			t.Fatalf("%s is not built: run make -C internal/gdbdiff/realworld (make test does)", p)
		}
		t.Skipf("%s is not built: run make -C internal/gdbdiff/realworld", p)
	}
	return p
}

func progArgs(prog string) []string {
	base, _, _ := strings.Cut(prog, "-")
	return realArgs[base]
}

func TestRealWorldDifferential(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	checkPeers(t)
	if *regenRealWorld {
		regenerate(t)
		return
	}
	specs, progs, byProg := loadStops(t, realStops)
	known, err := parseKnown(realKnown)
	if err != nil {
		t.Fatal(err)
	}
	setI386Peer(t, progs, func(p string) string {
		return filepath.Join(testenv.Root(t), "internal", "gdbdiff", "realworld", "build", p)
	})
	type result struct {
		sp     *stopSpec
		fields []field
	}
	var mu sync.Mutex
	var results []result
	t.Run("progs", func(t *testing.T) {
		for _, prog := range progs {
			t.Run(prog, func(t *testing.T) {
				t.Parallel()
				path := realProg(t, prog)
				ctx, cancel := context.WithTimeout(t.Context(), 150*time.Second)
				defer cancel()
				ses := runBounded(ctx, newSessionSide(path, progArgs(prog), env), byProg[prog])
				gdb := runBounded(ctx, newGDBSide(path, progArgs(prog), env), byProg[prog])
				so, gb := <-ses, <-gdb
				if so == nil || gb == nil {
					t.Errorf("%s: a side did not finish (session done: %v, gdb done: %v)", prog, so != nil, gb != nil)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, sp := range byProg[prog] {
					var fs []field
					for _, f := range compare(sp, so[sp.ID], gb[sp.ID], nil) {
						if f.Name == "callers" || f.Name == "args" || f.Name == "addrs" {
							// compared by the small differential; here the
							// stop itself (bt, vars, expressions)
							continue
						}
						// MI's -data-evaluate-expression prints a reference
						// without its referent (deref_ref off): "@0x7ffe…";
						// print and -stack-list-variables show "@0x7ffe…: {…}".
						if strings.HasPrefix(f.Name, "expr:") && refOnly.MatchString(f.GDB) && strings.HasPrefix(f.Ours, f.GDB+": ") {
							f.Ours = f.GDB
						}
						fs = append(fs, f)
					}
					results = append(results, result{sp, fs})
				}
			})
		}
	})
	slices.SortFunc(results, func(a, b result) int { return a.sp.Line - b.sp.Line })
	var agree, exprAgree, exprTotal int
	var paste []string
	for _, r := range results {
		clean := true
		for _, f := range r.fields {
			isExpr := strings.HasPrefix(f.Name, "expr:")
			if isExpr {
				exprTotal++
				if f.Ours == f.GDB {
					exprAgree++
				}
			}
			if f.Ours == f.GDB {
				continue
			}
			clean = false
			k := r.sp.Prog + "|" + r.sp.ID + "|" + f.Name
			kd := known[k]
			if pk := peerProg(r.sp.Prog) + "|" + r.sp.ID + "|" + f.Name; pk != k && known[pk] != nil {
				kd = known[pk]
			}
			if kd != nil {
				kd.used = true
				if !sameModuloAddrs(kd.ours, f.Ours) || !sameModuloAddrs(kd.gdb, f.GDB) {
					t.Errorf("%s:%d: %s %s differs otherwise than listed:\n\tours: %s\n\tgdb:  %s\n\tlisted ours: %s\n\tlisted gdb:  %s", realKnown, kd.line, r.sp, f.Name, f.Ours, f.GDB, kd.ours, kd.gdb)
					continue
				}
				t.Logf("%s %s: known difference (%s)\n\tours: %s\n\tgdb:  %s", r.sp, f.Name, kd.reason, f.Ours, f.GDB)
				continue
			}
			t.Errorf("%s (%s:%d) %s differs:\n\tours: %s\n\tgdb:  %s", r.sp, realStops, r.sp.Line, f.Name, f.Ours, f.GDB)
			paste = append(paste, fmt.Sprintf("%s | %s | %s | REASON\n\tours: %q\n\tgdb:  %q", r.sp.Prog, r.sp.ID, f.Name, f.Ours, f.GDB))
		}
		if clean {
			agree++
		}
	}
	if len(paste) > 0 {
		t.Logf("unexplained differences, in %s format:\n%s", realKnown, strings.Join(paste, "\n"))
	}
	ran := map[string]bool{}
	for _, r := range results {
		ran[r.sp.Prog] = true
	}
	for _, kd := range known {
		prog, here := entryProg(kd.key)
		if !here {
			continue // recorded with another peer than this machine's
		}
		if !kd.used && ran[prog] {
			t.Errorf("%s:%d: stale entry %s: the difference is gone; remove it", realKnown, kd.line, kd.key)
		}
	}
	if len(results) > 0 && len(results) == len(specs) {
		if len(specs) < 100 {
			t.Errorf("%s has %d stops; the real-world differential asks for at least 100", realStops, len(specs))
		}
		if exprTotal < 500 {
			t.Errorf("%d expressions compared; the real-world differential asks for at least 500", exprTotal)
		}
	}
	t.Logf("real-world-differential: %d stops, %d agree; expressions %d/%d agree", len(results), agree, exprAgree, exprTotal)
	realSummary.Lock()
	realSummary.ran = true
	realSummary.stops, realSummary.agree = len(results), agree
	realSummary.exprAgree, realSummary.exprTotal = exprAgree, exprTotal
	realSummary.Unlock()
}

// regenerate runs GDB over the stops of realworld_points.txt and writes
// realworld_stops.txt with the expressions its variable objects give.
func regenerate(t *testing.T) {
	_, progs, byProg := loadStops(t, realPoints)
	var b strings.Builder
	b.WriteString("# Generated by go test ./internal/gdbdiff -run RealWorld -args -regen-realworld\n")
	b.WriteString("# from realworld_points.txt: expressions from GDB's variable objects (see realworld_test.go).\n")
	for _, prog := range progs {
		path := realProg(t, prog)
		ctx, cancel := context.WithTimeout(t.Context(), 150*time.Second)
		g := &exprGen{gdbSide: newGDBSide(path, progArgs(prog), env), exprs: map[string][]string{}}
		obs := runScript(ctx, g, byProg[prog])
		cancel()
		for _, sp := range byProg[prog] {
			if o := obs[sp.ID]; o == nil || o.Err != "" {
				t.Logf("%s: left out, GDB did not stop there: %v", sp, o)
				continue
			}
			fmt.Fprintf(&b, "%s | %s | %s | %s\n", sp.Prog, sp.ID, stopText(sp), strings.Join(g.exprs[sp.ID], "; "))
		}
	}
	if t.Failed() {
		return
	}
	if err := os.WriteFile(realStops, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func stopText(sp *stopSpec) string {
	s := "break " + sp.Where
	if sp.Hit > 1 {
		s += fmt.Sprintf(" @%d", sp.Hit)
	}
	return s
}

// exprGen is GDB's side, recording at each stop the expressions of its
// variable objects instead of evaluating a list.
type exprGen struct {
	*gdbSide
	exprs map[string][]string
}

// refOnly is a reference as MI's expression evaluation prints it.
var refOnly = regexp.MustCompile(`^@0x[0-9a-f]+$`)

var scalarType = regexp.MustCompile(`^(const )?(unsigned |signed )?(char|short|int|long|long long|size_t|ssize_t|lu_byte|lu_mem|l_mem|lua_Integer|lua_Unsigned|int[0-9]+_t|uint[0-9]+_t|_Bool|bool|cJSON_bool)$`)

func (g *exprGen) observe(ctx context.Context, sp *stopSpec) *observation {
	rec, err := g.cmd(ctx, "-stack-list-variables --simple-values")
	if err != nil {
		return &observation{Err: "variables: " + err.Error()}
	}
	var out []string
	seen := map[string]bool{}
	add := func(e string) {
		if e != "" && !seen[e] && len(out) < maxExprsPerStop && !strings.Contains(e, ";") && !strings.Contains(e, "|") {
			seen[e] = true
			out = append(out, e)
		}
	}
	// Memory reads (x:, see stops.txt) where the pc and the pointers
	// point: how each side names an address (code, globals, heap, stack).
	// And each variable's ptype and whatis (t:, w:).
	mem := []string{memPrefix + "$pc", insPrefix + "$pc"}
	var types []string
	vars, _ := rec.Field("variables")
	for _, v := range vars.Values {
		name, typ := str(v, "name"), str(v, "type")
		if name == "" || strings.HasSuffix(name, "@entry") {
			continue
		}
		add(name)
		if len(types) < 2*maxTypesPerStop {
			types = append(types, ptypePrefix+name, whatisPrefix+name)
		}
		switch {
		case scalarType.MatchString(typ):
			add("(long)" + name)
		case strings.HasSuffix(typ, "*"):
			add("(unsigned long)" + name)
			if len(mem) < maxMemPerStop && !strings.Contains(typ, "(") {
				mem = append(mem, memPrefix+name)
			}
		}
		for _, c := range g.children(ctx, name, 2) {
			add(c)
		}
	}
	g.exprs[sp.ID] = append(append(out, mem...), types...)
	return &observation{}
}

// children returns the path expressions of a variable's variable-object
// children (C++ access pseudo-children looked through), at most a few
// elements of an array.
func (g *exprGen) children(ctx context.Context, name string, depth int) []string {
	rec, err := g.cmd(ctx, "-var-create - * "+gdbmi.Quote(name))
	if err != nil {
		return nil
	}
	vo := rec.String("name")
	defer g.cmd(ctx, "-var-delete "+vo)
	return g.listChildren(ctx, vo, depth)
}

func (g *exprGen) listChildren(ctx context.Context, vo string, depth int) []string {
	if depth == 0 {
		return nil
	}
	rec, err := g.cmd(ctx, "-var-list-children --simple-values "+vo+" 0 6")
	if err != nil {
		return nil
	}
	kids, _ := rec.Field("children")
	var out []string
	for _, k := range kids.Results {
		cname, exp := str(k.Value, "name"), str(k.Value, "exp")
		if exp == "public" || exp == "private" || exp == "protected" {
			out = append(out, g.listChildren(ctx, cname, depth-1)...)
			continue
		}
		p, err := g.cmd(ctx, "-var-info-path-expression "+cname)
		if err != nil {
			continue
		}
		out = append(out, p.String("path_expr"))
	}
	return out
}

// TestRealWorldSourcePaths: every source file the real-world programs'
// line tables name under their source trees exists (gcc in tree, clang and
// g++ through CMake out of tree, DWARF 5), and so does the file of every
// function: the paths frames and rr_source_lines use.
func TestRealWorldSourcePaths(t *testing.T) {
	for _, prog := range []string{"lua-O0", "lua-O2", "lua-m32-O0", "cjson-O0", "cjson-O2", "pugixml-O0", "pugixml-O2"} {
		t.Run(prog, func(t *testing.T) {
			path := realProg(t, prog)
			img, err := dwarf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer img.Close()
			tree := filepath.Join(filepath.Dir(path), "src")
			n := 0
			for _, f := range img.Files() {
				if !strings.HasPrefix(f, tree) {
					continue // system headers
				}
				n++
				if _, err := os.Stat(f); err != nil {
					t.Errorf("line-table file %s does not exist", f)
				}
			}
			for _, f := range img.Functions() {
				if strings.HasPrefix(f.DeclFile, tree) {
					if _, err := os.Stat(f.DeclFile); err != nil {
						t.Errorf("function %s: file %s does not exist", f.Name, f.DeclFile)
					}
				}
			}
			if n == 0 {
				t.Errorf("no line-table file under %s (files: %q)", tree, img.Files())
			}
		})
	}
}
