package dwarf

import "testing"

// TestAdaDecode: the names GDB 13.1 prints for ELF data symbols
// (print of a pointer to each: <name>), read from GDB on a program whose
// globals carry these symbol names; "" where GDB prints the name as is.
func TestAdaDecode(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"Calls.1", ""},
		{"Oadd", "\"+\""},
		{"Oadd_x", "\"+\"_x"},
		{"__PRETTY_FUNCTION__.0", ""},
		{"_x__y", ""},
		{"a__", ""},
		{"a__B_1__c", "a.c"},
		{"a___Xb", "a"},
		{"a_____b", ""},
		{"a___b", ""},
		{"a__b", "a.b"},
		{"a__b.c", "a.b[c]"},
		{"a__b__c", "a.b.c"},
		{"ab.cd", "ab[cd]"},
		{"ab__Cd", ""},
		{"abcN__d", "abc.d"},
		{"b__x_1", "b.x_1"},
		{"bad__", ""},
		{"barB", "bar"},
		{"bazX", "baz"},
		{"buf.0", "buf"},
		{"calls", ""},
		{"calls.", "calls[]"},
		{"calls.1", "calls"},
		{"calls.x1", ""},
		{"cnt_E12s", "cnt"},
		{"cnt_E12sz", ""},
		{"foo$12", "foo"},
		{"foo.cold", "foo[cold]"},
		{"foo.constprop.0", "foo.constprop"},
		{"foo.part.0", "foo.part"},
		{"foo1N", "foo1"},
		{"fooN", "foo"},
		{"fooTB", "foo"},
		{"get_ab__x.lto_priv.0", "get_ab.x.lto_priv"},
		{"k__2__x", "k.2.x"},
		{"lastT", ""},
		{"mixed_Up", ""},
		{"my__fn.cold", "my.fn[cold]"},
		{"my__var.0", "my.var"},
		{"my_buf2.12", "my_buf2"},
		{"name___1", "name"},
		{"p_TKB__z", ""},
		{"quxTKB", "qux"},
		{"s__0", "s"},
		{"t1__2b", "t1.2b"},
		{"x.1.2", "x.1"},
		{"x.isra.0", "x.isra"},
		{"x__1", "x"},
		{"x__12", "x"},
		{"y__1a", "y.1a"},
		{"zX", "z"},
		{"zXa", ""},
		{"zXb", "z"},
		{"zXbn", "z"},
		{"Oconcat", "\"&\""},
		{"Oeq", "\"=\""},
		{"Oexpon", "\"**\""},
		{"One", "\"/=\""},
		{"One1", ""},
		{"Onot_x", "\"not\"_x"},
		{"Oor", "\"or\""},
		{"Oorx", ""},
		{"Oxyz", ""},
		{"aTK__", ""},
		{"aTK__b", "a.b"},
		{"ab9__C", ""},
		{"abN_", ""},
		{"n.7", "n"},
		{"x_E1b", "x"},
		{"x_E1b_y", "x_y"},
		{"z1X", "z1"},
		{"xBTB", "x"}, // TKB, TB and B removed in turn
		{"aTKBB", ""},
		{"barTBB", ""},
		{"puts@got.plt", "puts@got[plt]"},
		{"SDL_Init@got.plt", ""},
	} {
		got, ok := adaDecode(tc.name)
		if !ok {
			got = ""
		}
		if got != tc.want {
			t.Errorf("adaDecode(%q) = %q, %v; GDB prints %q", tc.name, got, ok, tc.want)
		}
	}
}
