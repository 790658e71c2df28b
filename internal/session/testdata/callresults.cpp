// Operators libstdc++ has no xmethod for, which GDB evaluates by calling
// the program's function: a string's operator[], an iterator's and an
// optional's operator*. GDB prints the reference they return, (T &)
// @ADDR: VALUE, of the declared return type (whatis: …::reference).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

int main()
{
	std::string s = "hello";
	std::optional<int> o = 5;
	std::vector<int> v{1, 2, 3};
	auto it = v.begin() + 1;
	const std::string cs = "abc";
	std::printf("%s %d\n", s.c_str(), *o); // LINE:use
	return s[0] + *o + *it + cs[0];
}
