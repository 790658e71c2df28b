package dwarf_test

import (
	"testing"

	"github.com/rrmcp/rrmcp/dwarf"
)

// TestEdgeCLikeGDB covers more C printing cases: anonymous enums, 2-D
// char arrays, const structs, enum bitfields, long double arithmetic,
// complex floats, function pointer arrays, cycles through pointers.
func TestEdgeCLikeGDB(t *testing.T) {
	bin := dwarf.Compile(t, "gcc", "edge.c")
	exprs := []string{"g_anon_enum", "g_names", "g_bools", "g_cpp", "*g_cpp", "**g_cpp", "g_cpt", "g_blob", "g_fl", "g_lds",
		"g_fc", "g_fparr", "g_ring", "g_dnan", "g_one", "g_shorts", "g_vps", "g_empty", "g_uc_big", "g_names[1]", "ANON_A",
		"g_fl.m", "&g_cpt", "*&g_cpt", "g_ring[0].next->next->v", "sizeof(g_names)", "g_lds[1] * 2", "-g_lds[0]", "g_fparr[0]",
		"*g_fparr[0]", "g_fc", "(char)g_anon_enum", "g_names[0][1]", "&g_names[1]", "*g_names@2", "g_bools[1] || g_bools[2]",
		"g_lds[0] + 1", "g_lds[2] / 3", "g_lds[0] < g_lds[2]", "g_lds[0] * g_lds[1]",
		"(node) + 2", "sizeof(struct node)", "node * 2"}
	s := stopInGDB(t, bin, stopAtHere, exprs)
	checkEval(t, s, dwarf.LangC, exprs)
}
