package dwarf_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/eval"
)

// typeCase is one ptype/whatis comparison: cmd is "ptype" or "whatis";
// arg is a variable or (for ptype) a type name.
type typeCase struct {
	cmd, arg string
}

var cTypes = []typeCase{
	{"whatis", "g_np + 1"}, {"whatis", "g_np"}, {"whatis", "sizeof(int)"}, {"ptype", "unsigned long long"},
	{"ptype", "long long"}, {"ptype", "unsigned char"}, {"ptype", "signed char"}, {"ptype", "long double"},
	{"ptype", "short int"}, {"ptype", "unsigned"}, {"whatis", "unsigned"}, {"whatis", "long unsigned int"},
	{"ptype", "struct mixed"}, {"ptype", "struct node"}, {"ptype", "node_t"}, {"ptype", "binop"},
	{"ptype", "enum color"}, {"ptype", "enum alias"}, {"whatis", "g_alias"}, {"ptype", "union num"}, {"ptype", "struct bits"}, {"ptype", "head"},
	{"ptype", "g_ops"}, {"ptype", "g_matrix"}, {"ptype", "g_strs"}, {"ptype", "g_mixed"},
	{"whatis", "g_mixed"}, {"whatis", "head"}, {"whatis", "g_arr"}, {"whatis", "g_cp"}, {"whatis", "g_op"},
	{"whatis", "g_ops"}, {"whatis", "g_d"}, {"whatis", "g_ld"}, {"whatis", "g_short"}, {"whatis", "g_ulong"},
	{"whatis", "g_ll"}, {"whatis", "g_uc"}, {"whatis", "g_sc"}, {"whatis", "g_bool"}, {"whatis", "g_i32"},
	{"whatis", "g_u8"}, {"whatis", "g_ipp"}, {"whatis", "g_vp"}, {"whatis", "g_nodes"},
	{"whatis", "g_matrix"}, {"whatis", "g_u"}, {"whatis", "g_size"}, {"whatis", "g_strs"},
	{"whatis", "g_col"}, {"whatis", "g_esc"}, {"whatis", "node_t"}, {"whatis", "binop"}, {"whatis", "struct node"},
}

var cxxTypes = []typeCase{
	{"ptype", "TBox"}, {"ptype", "g_tbox"}, {"ptype", "Dup"},
	{"ptype", "SL<const char*, Cmp>::Node"}, {"whatis", "SL<const char *, Cmp>::Node"},
	{"ptype", "geo::Point"}, {"ptype", "geo::Shape"}, {"ptype", "geo::Circle"}, {"ptype", "Holder"},
	{"ptype", "Counter"}, {"ptype", "Diamond"}, {"ptype", "Mode"}, {"ptype", "Width"}, {"whatis", "g_width"}, {"ptype", "g_holder"},
	{"whatis", "g_pt"}, {"whatis", "g_buf"}, {"whatis", "g_mode"}, {"whatis", "g_s"}, {"whatis", "g_vec"},
	{"whatis", "g_map"}, {"whatis", "g_up"}, {"whatis", "g_sp"}, {"whatis", "g_circle"},
	{"whatis", "g_shape"}, {"whatis", "g_diamond"}, {"whatis", "g_holder"}, {"whatis", "g_ref"},
	{"whatis", "g_cstr"}, {"whatis", "g_aref"}, {"whatis", "g_holder.pm"}, {"whatis", "g_holder.pmf"},
	{"whatis", "g_holder.rref"}, {"whatis", "g_holder.c16"}, {"whatis", "g_holder.np"},
	{"ptype", "Outer"}, {"ptype", "Outer::Inner"}, {"ptype", "Outer::Kind"}, {"whatis", "g_outer.in"},
	{"whatis", "g_outer.k"}, {"ptype", "g_dir"}, {"ptype", "g_buf"}, {"ptype", "g_pair"},
}

// gdbTypes runs GDB on bin without running it, with the libstdc++ Python
// printers off (their type printers abbreviate std names), and returns
// what each command printed after "type = ".
func gdbTypes(t *testing.T, bin string, cases []typeCase) map[typeCase]string {
	t.Helper()
	args := []string{"-nx", "-batch", "-iex", "set auto-load python-scripts off", "-ex", "set width 0"}
	for i, c := range cases {
		args = append(args, "-ex", "echo <<<"+strconv.Itoa(i)+">>>\\n", "-ex", c.cmd+" "+c.arg)
	}
	args = append(args, bin)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "gdb", args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	out, _ := cmd.CombinedOutput()
	res := map[typeCase]string{}
	cur := -1
	var buf []string
	flush := func() {
		if cur >= 0 && cur < len(cases) {
			res[cases[cur]] = strings.TrimPrefix(strings.Join(buf, "\n"), "type = ")
		}
		buf = nil
	}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if m := markRe.FindStringSubmatch(line); m != nil {
			flush()
			cur, _ = strconv.Atoi(m[1])
			continue
		}
		buf = append(buf, line)
	}
	flush()
	return res
}

// typeKnownDiff: ptype output we knowingly spell differently.
var typeKnownDiff = map[typeCase]string{}

func checkTypes(t *testing.T, bin string, s *gdbStop, cases []typeCase) {
	t.Helper()
	want := gdbTypes(t, bin, cases)
	sc := &coreScope{s, s.types.LangAt(0)}
	agree := 0
	for _, c := range cases {
		var typ dwarf.Type
		isTypeName := false
		if tt, err := eval.NamedType(context.Background(), sc, c.arg); err == nil {
			typ, isTypeName = tt, true
		} else {
			o, err := eval.EvalExpr(context.Background(), sc, c.arg)
			if err != nil {
				t.Errorf("%s %s: %v", c.cmd, c.arg, err)
				continue
			}
			typ = o.Type
		}
		got := dwarf.TypeString(typ)
		switch {
		case c.cmd == "ptype":
			got = dwarf.PtypeString(typ, nil, dwarf.Naming{})
		case isTypeName:
			got = dwarf.WhatisTypeName(typ, nil, dwarf.Naming{})
		}
		if reason, ok := typeKnownDiff[c]; ok {
			t.Logf("%s %s: known difference (%s)", c.cmd, c.arg, reason)
			continue
		}
		if got != want[c] {
			t.Errorf("%s %s:\n got: %s\nwant: %s", c.cmd, c.arg, got, want[c])
			continue
		}
		agree++
	}
	t.Logf("types: %d commands, %d agree with gdb", len(cases), agree)
}
