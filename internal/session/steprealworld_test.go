package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestRealWorldStepsMatchGDB: next, step and finish through real
// open-source code built -O2 and -O0 (the real-world differential's
// programs: lua by gcc in its source tree, also -m32, cJSON by clang and
// pugixml by g++, both through CMake out of tree) stop where GDB's do, pc, file and line, move
// for move, from a breakpoint on a function of each. GDB debugging the
// program natively, run the same way, is the oracle.
func TestRealWorldStepsMatchGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	dir := filepath.Join(testenv.Root(t), "internal", "gdbdiff", "realworld", "build")
	luaArgs := []string{"-e", "local t = {} for i = 1, 12 do t[i] = ('x'):rep(i) .. i end local s = table.concat(t, ',') print(#s, s:sub(1, 20))"}
	const (
		mixed = "next next next step next next next finish next next step next next finish next next"
		deep  = "step step step next next finish finish next next next step step next finish next"
		nexts = "next next next next next next next next next next next next"
	)
	for _, tc := range []struct {
		prog  string
		args  []string
		fn    string
		moves string
	}{
		{"lua-O2", luaArgs, "luaL_openlibs", mixed},
		{"lua-O2", luaArgs, "luaH_resize", deep},
		{"lua-O2", luaArgs, "luaS_newlstr", nexts},
		{"lua-O2", luaArgs, "lua_setfield", deep},
		{"lua-O2", luaArgs, "str_rep", mixed},
		{"cjson-O2", nil, "create_objects", mixed},
		{"cjson-O2", nil, "print_value", deep},
		{"cjson-O2", nil, "cJSON_AddItemToObject", nexts},
		{"cjson-O2", nil, "print_object", deep},
		{"pugixml-O2", nil, "pugi::xml_node::traverse", mixed},
		{"pugixml-O2", nil, "pugi::xml_document::load_file", deep},
		{"pugixml-O2", nil, "simple_walker::for_each", nexts},
		// -O0, and lua as i386 code.
		{"lua-O0", luaArgs, "luaH_resize", deep},
		{"lua-O0", luaArgs, "luaS_newlstr", mixed},
		{"lua-m32-O0", luaArgs, "luaH_resize", deep},
		{"lua-m32-O0", luaArgs, "lua_setfield", mixed},
		{"cjson-O0", nil, "print_value", deep},
		{"cjson-O0", nil, "create_objects", mixed},
		{"pugixml-O0", nil, "pugi::xml_document::load_file", deep},
		{"pugixml-O0", nil, "pugi::xml_node::traverse", mixed},
	} {
		t.Run(tc.prog+"/"+tc.fn, func(t *testing.T) {
			exe := filepath.Join(dir, tc.prog)
			if _, err := os.Stat(exe); err != nil {
				if testenv.InCI() {
					t.Fatalf("%v: make -C internal/gdbdiff/realworld builds it", err)
				}
				t.Skipf("%v: make -C internal/gdbdiff/realworld builds it", err)
			}
			if testenv.IsI386(exe) && testenv.I386Peer(t) != "gdbserver" {
				// GDB runs the program natively as the oracle here.
				t.Skipf("this kernel does not run i386 programs (peer %s), so GDB cannot run %s natively", testenv.I386Peer(t), tc.prog)
			}
			moves := strings.Fields(tc.moves)
			want := gdbMovesAfter(t, exe, []string{"cd " + dir, "break " + tc.fn, "run " + gdbArgs(tc.args)}, moves)
			got := sessionMovesWith(t, LiveOptions{Command: append([]string{exe}, tc.args...), Dir: dir}, tc.fn, moves[:len(want)-1])
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("move %d (%s): stopped at %v, GDB at %v\nrrmcp: %v\nGDB:   %v", i, append([]string{"break " + tc.fn}, moves...)[i], got[i], want[i], got[:i+1], want[:i+1])
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d stops, GDB %d\nrrmcp: %v\nGDB:   %v", len(got), len(want), got, want)
			}
		})
	}
}

// gdbArgs quotes a command line for GDB's run (its shell splits it).
func gdbArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
