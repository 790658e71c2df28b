package format

import (
	"testing"

	"github.com/rrmcp/rrmcp/dwarf"
)

// TestFormatChars: code units of each width as GDB 13 prints them in a
// UTF-8 locale (the cases the GDB differential's cpp_text stop does not
// reach: an incomplete sequence inside a string, a string that is only
// one, unpaired surrogates, code points past Unicode's).
func TestFormatChars(t *testing.T) {
	env := &printer{ValueEnv: &dwarf.ValueEnv{}}
	bytes := func(s string) []uint64 {
		out := make([]uint64, len(s))
		for i := range len(s) {
			out[i] = uint64(s[i])
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		units []uint64
		es    int
		trunc bool
		want  string
	}{
		{"ascii", bytes("a\tb\"c"), 1, false, `"a\tb\"c"`},
		{"utf-8", bytes("caf\xc3\xa9 \xe2\x82\xac"), 1, false, `"café €"`},
		{"invalid byte", bytes("a\xffb"), 1, false, `"a\377b"`},
		{"lone lead byte inside", bytes("a\xc3b"), 1, false, `"a\303b"`},
		{"incomplete inside", bytes("abc\xe2\x82xyz"), 1, false, `"abc\342\202xyz"`},
		{"incomplete at the end", bytes("abc\xe2\x82"), 1, false, `"abc", <incomplete sequence \342\202>`},
		{"only incomplete", bytes("\xf0\x9f"), 1, true, `<incomplete sequence \360\237>...`},
		// glibc's decoder (GDB's iconv) still starts 4- to 6-byte
		// sequences at 0xF5-0xFD
		{"0xf7 lead at the end", bytes("ab\xf7"), 1, false, `"ab", <incomplete sequence \367>`},
		{"0xfc lead and continuations at the end", bytes("a\xfc\x80\x80"), 1, false, `"a", <incomplete sequence \374\200\200>`},
		{"0xfe at the end", bytes("a\xfe"), 1, false, `"a\376"`},
		{"0xf8 then no continuation", bytes("a\xf8b"), 1, false, `"a\370b"`},
		{"unprintable U+0085", bytes("\xc2\x85"), 1, false, `"\302\205"`},
		{"overlong", bytes("\xc0\xaf"), 1, false, `"\300\257"`},
		{"repeats", bytes("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9x"), 1, false, `'é' <repeats 11 times>, "x"`},
		{"utf-16 pair", []uint64{'h', 0xd83d, 0xde00}, 2, false, `"h😀"`},
		{"utf-16 lone surrogate", []uint64{0xd83d, 'x'}, 2, false, `"\xd83dx"`},
		{"utf-32", []uint64{0xe9, 0x1f600}, 4, false, `"é😀"`},
		{"utf-32 past Unicode", []uint64{0x110000}, 4, false, `"\x110000"`},
		{"utf-32 unprintable", []uint64{0x85}, 4, false, `"\205"`},
	} {
		if got := env.formatChars(decodeChars(tc.units, tc.es), "", tc.trunc); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		c    uint64
		es   int
		want string
	}{{0xc3, 1, `\303`}, {'a', 1, "a"}, {0xe9, 4, "é"}, {0xd800, 2, `\xd800`}, {0x85, 4, `\205`}} {
		if got := escapeChar(charUnit(tc.c, tc.es), '\''); got != tc.want {
			t.Errorf("character %#x of %d bytes: %s, want %s", tc.c, tc.es, got, tc.want)
		}
	}
}

// TestRustOptimizedOutMember: a Rust struct member whose pieces are all
// optimized out prints in Rust's syntax, member by member, as GDB 13.1
// printed rustc 1.95's slice iterator at opt-level 1 (core::slice::iter::
// Iter<rs::Token> {ptr: core::ptr::non_null::NonNull<rs::Token> {pointer:
// <optimized out>}, end_or_len: 0x…}); it printed C's {pointer =
// <optimized out>}.
func TestRustOptimizedOutMember(t *testing.T) {
	rust := func(name string, size int64) dwarf.CommonType {
		return dwarf.CommonType{Name: name, ByteSize: size, Lang: dwarf.LangRust}
	}
	tok := &dwarf.StructType{CommonType: rust("rs::Token", 16)}
	ptr := &dwarf.PointerType{CommonType: rust("*mut rs::Token", 8), Elem: tok}
	nonNull := &dwarf.StructType{CommonType: rust("core::ptr::non_null::NonNull<rs::Token>", 8),
		Fields: []dwarf.Field{{Name: "pointer", Type: ptr}}}
	iter := &dwarf.StructType{CommonType: rust("core::slice::iter::Iter<rs::Token>", 16),
		Fields: []dwarf.Field{{Name: "ptr", Type: nonNull}, {Name: "end_or_len", Type: ptr, ByteOffset: 8}}}
	o := dwarf.Object{Type: iter, Loc: dwarf.Location{Kind: dwarf.LocPieces, Pieces: []dwarf.Piece{
		{Loc: dwarf.Location{Kind: dwarf.LocOptimizedOut}, Size: 8},
		{Loc: dwarf.Location{Kind: dwarf.LocValue, Bytes: []byte{8, 0x90, 0x5b, 0x55, 0x55, 0x55, 0, 0}}, Size: 8},
	}}}
	want := "core::slice::iter::Iter<rs::Token> {ptr: core::ptr::non_null::NonNull<rs::Token> {pointer: <optimized out>}, end_or_len: 0x5555555b9008}"
	if got := Text(&dwarf.ValueEnv{}, o); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
