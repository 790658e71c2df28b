package dwarf_test

import (
	"testing"

	"github.com/rrmcp/rrmcp/dwarf"
)

// TestEdgeCXXLikeGDB covers multiple inheritance (pointer adjustment in
// casts), pointers and references to bases, classes holding library
// types, nested namespaces and constant static members.
func TestEdgeCXXLikeGDB(t *testing.T) {
	bin := dwarf.Compile(t, "g++", "edge.cpp")
	exprs := []string{"g_c", "g_bp", "*g_bp", "g_ap", "*g_ap", "g_br", "(C *)g_bp", "*(C *)g_bp", "((C *)g_bp)->c",
		"(B *)&g_c", "(A *)&g_c", "g_person", "g_person.name", "g_person.tags", "g_person.scores", "g_person.friend_",
		"*g_person.friend_", "g_person.friend_->name", "g_pv", "*g_pv", "(*g_pv)[1]", "g_pv->size()", "ns::inner::depth",
		"g_t", "ns::inner::T::k", "g_t.k", "*g_cip", "g_people", "*g_people[0]", "g_people[0]->age + 1",
		"sizeof(ns::inner::T)", "g_c.a + g_c.b + g_c.c", "g_bp->b", "*(std::string *)&g_fs1",
		"*(std::string *)&g_fs2", "*(std::string *)&g_fs3"}
	s := stopInGDB(t, bin, stopAtHere, exprs)
	checkEval(t, s, dwarf.LangCPlusPlus, exprs)
}
