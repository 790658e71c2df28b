// A reference the compiler keeps as a synthetic pointer (g++ -O2: the
// range-for's __for_range is DW_OP_implicit_pointer to text), to a type
// with a pretty printer: print shows the printer's text, info locals
// "<synthetic pointer>" and the text, as GDB.
#include <cstdio>
#include <string>
#include <string_view>

__attribute__((noinline)) int count_words(std::string_view text)
{
	int n = 0;
	bool in = false;
	for (char ch : text) {
		bool sp = ch == ' ' || ch == ',';
		if (!sp && !in)
			n++;
		in = !sp;
	}
	return n;
}

int main(int argc, char **argv)
{
	std::string_view text = argc > 1 ? argv[1] : "one two, three  four";
	int w = count_words(text);
	std::string out = std::to_string(w);
	std::printf("%s\n", out.c_str());
	return 0;
}
