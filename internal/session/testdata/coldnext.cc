// next from B::speak jumps to its cold part (g++ -O2: the throw), whose
// first instruction has no line-table row: GDB stops there.
#include <stdexcept>
#include <string>
struct E : std::runtime_error { E(const std::string &w, int c) : std::runtime_error(w), code(c) {} int code; };
struct A { virtual ~A() = default; virtual std::string name() const = 0; virtual int speak(int) const = 0; };
struct B : A {
	double span; unsigned can_fly : 1;
	B(double s) : span(s), can_fly(0) {}
	std::string name() const override { return "bird"; }
	int speak(int times) const override;
};
int B::speak(int times) const
{
	if (!can_fly)
		throw E("grounded " + name(), times);
	return times * 2;
}
int main()
{
	A *a = new B(0.5);
	int r = 0;
	try {
		r = a->speak(2);
	} catch (const E &e) {
		r = e.code;
	}
	return r;
}
