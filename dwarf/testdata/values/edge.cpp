// Compile: g++ -O0 -g -o edgecpp edge.cpp
// More C++ printing and evaluation cases; here() is the stop.
#include <map>
#include <memory>
#include <string>
#include <vector>

struct A {
	int a = 1;
	virtual ~A() {}
};
struct B {
	int b = 2;
	virtual void f() {}
};
struct C : A, B {
	int c = 3;
};
struct Person {
	std::string name;
	int age;
	std::vector<std::string> tags;
	std::map<std::string, int> scores;
	std::unique_ptr<Person> friend_;
};
namespace ns {
namespace inner {
int depth = 2;
struct T {
	static const int k = 7;
	int v;
};
} // namespace inner
} // namespace ns

C g_c;
B *g_bp = &g_c;
A *g_ap = &g_c;
B &g_br = g_c;
Person g_person{"ann", 30, {"x", "y"}, {{"m", 90}}, std::make_unique<Person>(Person{"bob", 4, {}, {}, nullptr})};
std::vector<int> *g_pv = new std::vector<int>{5, 6};
ns::inner::T g_t{9};
const int *g_cip = &ns::inner::depth;
std::vector<Person *> g_people = {&g_person};
// std::string layouts with garbage lengths (a string not constructed yet)
struct FakeStr {
	const char *p;
	unsigned long len;
	char buf[16];
};
FakeStr g_fs1 = {"hello", 0x7FFFFFFFE710UL, {}};
FakeStr g_fs2 = {"hello", 0xFFFFFFFFUL, {}};
FakeStr g_fs3 = {"hello", 0x100000003UL, {}};

__attribute__((noinline)) void here() { __asm__ volatile(""); }

int main()
{
	here();
	return g_c.c + ns::inner::depth;
}
