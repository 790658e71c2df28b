package dwarf

// libstdc++'s std::__cxx11::basic_string, as the library lays it out
// (the ABI of GCC 5 and later): a pointer to the characters
// (_M_dataplus._M_p, _Alloc_hider's only member), the length, and a
// 16-byte local buffer for short strings, union'd with the capacity.
// clang without -fstandalone-debug emits only a declaration of it (the
// library instantiates std::string itself, an extern template), so
// every std::string printed as <incomplete type>, a vector of them had
// no element size, and GDB's printers fail there too. Where the debug
// information has no definition, this is the definition used.

// stdStringChars are the character types of basic_string's
// specializations, by name, with their size and DW_ATE encoding.
var stdStringChars = map[string]struct {
	size int64
	enc  int64
}{
	"char":     {1, EncSignedChar},
	"wchar_t":  {4, EncSigned},
	"char8_t":  {1, EncUTF},
	"char16_t": {2, EncUTF},
	"char32_t": {4, EncUTF},
}

// stdStringDefinition is the definition of the std::__cxx11::basic_string
// specialization named name (canonical, its default arguments spelled
// out), for pointers of ptr bytes; nil for any other name.
func stdStringDefinition(name string, ptr int64) *StructType {
	for ch, c := range stdStringChars {
		if name != "std::__cxx11::basic_string<"+ch+", std::char_traits<"+ch+">, std::allocator<"+ch+"> >" {
			continue
		}
		cxx := CommonType{Lang: LangCPlusPlus}
		cht := &BaseType{CommonType: CommonType{Name: ch, ByteSize: c.size, Lang: LangCPlusPlus}, Encoding: c.enc}
		size := &BaseType{CommonType: CommonType{Name: "unsigned long", ByteSize: ptr, Lang: LangCPlusPlus}, Encoding: EncUnsigned}
		if ptr == 4 {
			size.Name = "unsigned int"
		}
		chp := &PointerType{CommonType: CommonType{ByteSize: ptr, Lang: LangCPlusPlus}, Elem: cht}
		hider := &StructType{CommonType: CommonType{Name: "std::__cxx11::basic_string<" + ch + ", std::char_traits<" + ch + ">, std::allocator<" + ch + "> >::_Alloc_hider", ByteSize: ptr, Lang: LangCPlusPlus},
			Kind: "struct", Fields: []Field{{Name: "_M_p", Type: chp, Access: "public"}}}
		buf := &ArrayType{CommonType: CommonType{ByteSize: 16, Lang: LangCPlusPlus}, Elem: cht, Count: 16 / c.size}
		local := &StructType{CommonType: CommonType{ByteSize: 16, Lang: LangCPlusPlus}, Kind: "union",
			Fields: []Field{{Name: "_M_local_buf", Type: buf, Access: "public"}, {Name: "_M_allocated_capacity", Type: size, Access: "public"}}}
		cxx.Name, cxx.ByteSize = name, 2*ptr+16
		return &StructType{CommonType: cxx, Kind: "class",
			Fields: []Field{
				{Name: "_M_dataplus", Type: hider, ByteOffset: 0, Access: "private"},
				{Name: "_M_string_length", Type: size, ByteOffset: ptr, Access: "private"},
				{Type: local, ByteOffset: 2 * ptr, Access: "private"},
			},
			TemplateParams: []TemplateParam{{Name: "_CharT", Type: cht}}}
	}
	return nil
}
