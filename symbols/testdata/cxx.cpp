// C++ program with namespaces, classes, templates and overloads, for
// symbols tests. Built by the tests: g++ -g -O0 -o cxx cxx.cpp
#include <cstdio>
#include <string>
#include <vector>

struct Shape {
	virtual ~Shape() {}
	virtual double area() const { return 0; }
};

namespace geo {
struct Shape {
	virtual ~Shape() {}
	virtual double area() const = 0;
};
struct Circle : Shape {
	double r;
	explicit Circle(double r) : r(r) {}
	double area() const override;
};
double Circle::area() const { return 3.0 * r * r; }

namespace inner {
class Foo {
public:
	int bar(int x) { return x + 1; }
	int bar(double x) { return int(x) + 2; }
	static int baz() { return 7; }
	bool operator<(const Foo &) const { return false; }
	int operator()(int x) const { return x * 3; }
};
} // namespace inner

template <typename T> struct Box {
	T v;
	T get() const { return v; }
};
template struct Box<int>;
template struct Box<double>;

template <typename T> T twice(T x) { return x + x; }
template int twice<int>(int);
template std::string twice<std::string>(std::string);
} // namespace geo

int overload(int x) { return x; }
int overload(const char *s) { return s[0]; }
int overload(const std::string &s) { return int(s.size()); }

namespace {
int anon_func(int x) { return x - 1; }
} // namespace

int main(int argc, char **) {
	geo::Circle c(argc);
	Shape s;
	geo::inner::Foo foo;
	std::vector<int> v{1, 2, 3};
	std::string str("abc");
	int n = foo.bar(argc) + foo.bar(1.5) + geo::inner::Foo::baz() + foo(2) + (foo < foo);
	n += overload(argc) + overload("x") + overload(str) + anon_func(n);
	n += geo::twice(n) + int(geo::twice(str).size()) + int(v.size());
	std::printf("%d %f %f\n", n, c.area(), s.area());
	return 0;
}
