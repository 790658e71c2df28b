// g++ writes a function type among template arguments without a space
// (W<int(int)>); GDB's name parser cannot read it and prints it as written.
#include <functional>
template <typename F> struct W { F *f; };
template <typename F> struct P { F f; };
static int twice(int x) { return 2 * x; }
int main()
{
	std::function<int(const char *)> cb = [](const char *s) { return (int)s[0]; };
	W<int(int)> w{twice};
	P<int (*)(int)> p{twice};
	return cb("a") + w.f(1) + p.f(2); // LINE:use
}
