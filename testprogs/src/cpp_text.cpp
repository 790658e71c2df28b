/*
 * cpp_text: text outside ASCII in every character type, which GDB in a
 * UTF-8 locale (its default charsets then: UTF-8 for char, UTF-16 for
 * char16_t, UTF-32 for wchar_t and char32_t) prints as the characters
 * themselves, and everything else escaped.
 * - greek, ubytes, s: printable UTF-8 in char and unsigned char arrays, a
 *   pointer and a std::string; runs: a repeated two-byte character;
 * - broken: an invalid byte, a lone lead byte, an unprintable U+0085 and
 *   an incomplete sequence at the end;
 * - wide, utf16, utf32 and the single characters wch, ch16, ch32: the
 *   wide types, a surrogate pair in utf16;
 * - many: 250 two-byte characters, of which an array prints 200
 *   characters, a pointer (manyp) and a std::string (longer) 200 bytes;
 *   eurosp: 200 bytes that end inside a three-byte character; terr, a
 *   class whose base (std::runtime_error) has no definition here.
 * Root cause: none (exits 0)
 * Symptom:    prints "text 1367" and exits with status 0
 * Build (in testprogs/src):
 *             g++ -O0 -g -o ../build/cpp_text cpp_text.cpp
 */
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

char greek[] = "\xce\xb1\xce\xb2\xce\xb3 caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
char broken[] = "x\xffy\xc3z\xc2\x85q\xe2\x82";  // invalid, an unprintable U+0085, a cut sequence
char runs[] = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9" "end";
wchar_t wide[] = L"h\u00e9llo \u20ac \U0001F600 \u0085";
char16_t utf16[] = u"h\u00e9 \U0001F600";
char32_t utf32[] = U"h\u00e9 \U0001F600";
wchar_t wch = L'\u00e9';
char16_t ch16 = u'\u00e9';
char32_t ch32 = U'\U0001F600';
char byte = '\xc3';
unsigned char ubytes[] = "\xc3\xa9t\xc3\xa9";
char many[600];     // 250 two-byte characters: an array prints 200 characters
char euros[400];    // 'a' then three-byte characters: a pointer reads 200 bytes
const char *text = greek;
// A class whose base g++ describes by its declaration alone (the library
// defines std::runtime_error): GDB prints the base {<No data fields>}.
struct text_error : std::runtime_error {
	using std::runtime_error::runtime_error;
	int code = 7;
};
text_error terr("bad text");
const char *manyp = many;
const char *eurosp = euros;

__attribute__((noinline)) size_t show(const std::string &s, const std::string &longer) {
	return s.size() + longer.size() + strlen(text) + strlen(manyp) + strlen(eurosp);
}

int main() {
	for (int i = 0; i < 250; i++) {
		many[2 * i] = (char)0xc3;
		many[2 * i + 1] = (char)(0xa0 + i % 16);
	}
	euros[0] = 'a';
	for (int i = 0; i < 110; i++)
		memcpy(euros + 1 + 3 * i, "\xe2\x82\xac", 3);
	std::string s = "na\xc3\xafve r\xc3\xa9sum\xc3\xa9";
	std::string longer(many);
	printf("text %zu\n", show(s, longer));
	return 0;
}
