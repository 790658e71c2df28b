// Functions returning values of every kind the System V ABI places
// differently, for TestFinishValuesMatchGDB: scalars in rax or xmm0,
// small structs in rax:rdx, xmm0:xmm1 or a mix, large ones and classes
// that are not trivially copyable (std::string, std::map, whose nodes
// point back into it) through memory.
#include <map>
#include <string>

struct Small { int a; long b; };
struct Dbl { double x, y; };
struct Mixed { double x; int n; };
struct Floats { float a, b, c; };
struct Big { long a, b, c; };
struct WithDtor { int a; ~WithDtor() {} };
struct Chars { char tag[6]; short n; };
enum Color { RED, GREEN = 5 };
typedef const char *cstr;                          // a typedef GDB strips from the return type
struct Ctx { typedef const char *iterator; const char *s; };
typedef Small *small_p;

__attribute__((noinline)) std::string mk(int n) { return std::string(n, 'x'); }
__attribute__((noinline)) Small small(int n) { return Small{n, 2L * n}; }
__attribute__((noinline)) Dbl dbl(double v) { return Dbl{v, v * 2}; }
__attribute__((noinline)) Mixed mixed(int n) { return Mixed{1.5, n}; }
__attribute__((noinline)) Floats floats(float v) { return Floats{v, v + 1, v + 2}; }
__attribute__((noinline)) Big big(long v) { return Big{v, v + 1, v + 2}; }
__attribute__((noinline)) WithDtor withdtor(int v) { return WithDtor{v}; }
__attribute__((noinline)) Chars chars(short n) { return Chars{"abc", n}; }
__attribute__((noinline)) Color color(int n) { return n ? GREEN : RED; }
__attribute__((noinline)) const char *text(int n) { return n ? "yes" : "no"; }
__attribute__((noinline)) unsigned char *bytes(unsigned char *p) { return p + 1; }
__attribute__((noinline)) float half(float v) { return v / 2; }
__attribute__((noinline)) cstr name(int i) { static const char *n[] = {"zero", "one"}; return n[i & 1]; }
__attribute__((noinline)) Ctx::iterator begin(const Ctx &c) { return c.s; }
__attribute__((noinline)) small_p smallp(Small *p) { return p; }
__attribute__((noinline)) bool odd(int n) { return n & 1; }
__attribute__((noinline)) std::map<std::string, int> counts(int n) {
	std::map<std::string, int> m;
	m["a"] = n;
	m["b"] = n + 1;
	return m;
}

unsigned char buf[8] = "hello";
Small gsmall = {3, 4};

// The Itanium ABI's "non-trivial for the purposes of calls", as GDB's
// gnuv3_pass_by_reference: a copy constructor or destructor = default in
// the class keeps a class in registers (rrmcp read them through rax), a
// virtual method sends it to memory (rrmcp read rax:rdx).
struct DefCopy {
	double d;
	bool b;
	DefCopy() = default;
	DefCopy(const DefCopy &) = default;
};
struct DefDtor {
	double d;
	bool b;
	~DefDtor() = default;
};
struct Dyn {
	virtual int f() const { return 1; }
	long x;
};
__attribute__((noinline)) DefCopy defcopy(int k)
{
	DefCopy w;
	w.d = k * 2.5;
	w.b = true;
	return w;
}
__attribute__((noinline)) DefDtor defdtor(int k)
{
	DefDtor d;
	d.d = k * 0.5;
	d.b = true;
	return d;
}
__attribute__((noinline)) Dyn dyn(int k)
{
	Dyn v;
	v.x = k * 11;
	return v;
}

int main()
{
	std::string s = mk(3);
	Small a = small(4);
	Dbl d = dbl(2.5);
	Mixed m = mixed(7);
	Floats f = floats(1.25f);
	Big b = big(9);
	WithDtor w = withdtor(5);
	Chars c = chars(12);
	Ctx x{"}abc"};
	return (int)s.size() + a.a + (int)d.x + m.n + (int)f.a + (int)b.a + w.a + c.n + color(1) + text(1)[0] +
	       bytes(buf)[0] + (int)half(3) + odd(3) + (int)counts(3).size() + name(1)[0] + begin(x)[0] +
	       (int)smallp(&gsmall)->a + (int)defcopy(2).d + (int)defdtor(8).d + (int)dyn(2).x;
}
