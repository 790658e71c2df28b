// Function names GDB takes from the linkage name, for
// TestFrameNamesMatchGDB: a template function with a defaulted (enable_if)
// template argument that GCC's DW_AT_name leaves out, a function with an
// ABI tag, and, inside a function template, a local class's member and a
// lambda, whose demangled names GDB's own name parser cannot read (it
// then keeps the parameters); and without a linkage name (instances over
// a lambda of a function that is no template), the DWARF name with the
// parameter types, where GDB cannot parse it; names local to main and to
// an extern "C" function, which GDB can.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

template <typename T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
int f(T x) { return x + 1; } // LINE:f
template <typename V> int g(const V &v) { return f(v[0]); }
std::string h(int n) { return std::string(n, 'x') + std::to_string(g(std::vector<int>{n})); }

template <typename F> int apply(F fn, int v) { return fn(v); }
template <typename T> int outer(T k)
{
	struct Local {
		T m;
		int get(int a) const { return m * a; } // LINE:get
	};
	Local l{k};
	return apply([&l](int x) { return l.get(x) + 1; }, 3);
}

int sorted()
{
	std::vector<int> v{5, 3, 9, 1, 7};
	std::sort(v.begin(), v.end(), [](int a, int b) {
		return a > b; // LINE:cmp
	});
	return v[0];
}

int plain(int k)
{
	struct Local {
		int m;
		int get(int a) const { return m * a; } // LINE:plainget
	};
	Local l{k};
	return apply([&l](int x) { return l.get(x) + 1; }, 3);
}

static int calls;

// A function type among a class template's arguments, and an empty
// template argument list: GDB's parser cannot read either, so GDB keeps
// the parameters (W<void (int)>::get(int) const, gx<TT<> >(TT<>)).
template <typename F> struct W {
	int get(int x) const
	{
		return x + 1; // LINE:wget
	}
};
template <typename... A> struct TT {};
template <typename X> int gx(X)
{
	return 2; // LINE:gx
}

// Value arguments of class templates, which GCC's DW_AT_name spells
// without their type and the demangler with it (Ring<int, 3ul>::push,
// Box<-2l>::get, Chr<(char)97>::get): GDB's name is the demangled one.
template <typename T, unsigned long N> struct Ring {
	T buf[N];
	int push(T v)
	{
		buf[0] = v;
		return (int)N; // LINE:ringpush
	}
};
template <long L> struct Box {
	long get() const
	{
		return L; // LINE:boxget
	}
};
template <char C, bool B> struct Chr {
	int get(int x) const
	{
		return B ? x + C : x; // LINE:chrget
	}
};

extern "C" int cfun(int k)
{
	struct CL {
		int m;
		int get(int a) const { return m * a; } // LINE:cget
	};
	CL l{k};
	return l.get(2);
}

// Ref-qualified member functions, which GDB's name parser cannot read:
// GDB shows the whole demangled name (RQ::get() const &, RQ::get() &&,
// RQ::value_or<int>(int&&) const &, without its return type).
struct RQ {
	int v;
	int get() const &
	{
		return v + 1; // LINE:rqget
	}
	int get() &&
	{
		return v + 2; // LINE:rqrv
	}
	template <typename U> int value_or(U &&d) const &
	{
		return v ? v : (int)d; // LINE:rqvalor
	}
};

// A function template with a parameter pack, declared in a namespace and
// called with a lambda: GDB names it from the definition's parameters,
// where the pack is one DW_TAG_GNU_formal_parameter_pack it does not
// count (ns::packed<main()::<lambda(int, int)>, int&, int>(struct {...}
// &&)), not from the declaration's, where the pack is expanded.
namespace ns {
template <typename F, typename... Args> int packed(F &&f, Args &&...args)
{
	return f(args...); // LINE:packed
}
} // namespace ns

// A function type among a parameter type's template arguments: GDB's
// parser cannot read it there either, so GDB keeps the parameters
// (fparam(W<int (int)> const&), ns::qparam(W<void (double, char)>, int));
// behind a pointer it reads them (gparam).
int fparam(const W<int(int)> &w)
{
	return w.get(1); // LINE:fparam
}
int gparam(W<int (*)(int)> w)
{
	return w.get(2); // LINE:gparam
}
namespace ns {
int qparam(W<void(double, char)> w, int x)
{
	return w.get(x); // LINE:qparam
}
} // namespace ns

int main(int argc, char **)
{
	// Names local to main and to an extern "C" function: printed without
	// the function's parameters, so GDB's parser reads clang's
	// (main::$_0::operator()) and removes their parameters.
	struct Local {
		int m;
		int get(int a) const { return m * a; } // LINE:mget
	};
	Local l{argc};
	RQ rq{0};
	std::vector<int> v{argc, 3, 9, 1};
	// At -O2 the sort is inlined into main: its frames are inlined
	// calls, which GDB names without parameters (a DW_TAG_subprogram's
	// name only gets them).
	std::sort(v.begin(), v.end(), [](int a, int b) {
		calls += a & 1; // LINE:mlam
		if (calls > 1000)
			std::abort();
		return a > b;
	});
	return (int)h(2).size() + outer<int>(5) + sorted() + plain(2) + apply([&l](int x) { return l.get(x); }, 3) + cfun(argc) + v[0] - 49 +
	       W<void(int)>().get(argc) + gx(TT<>()) - 4 + Ring<int, 3>().push(argc) + (int)Box<-2>().get() + Chr<'a', true>().get(argc) -
	       99 + ns::packed([](int x, int y) { return x - y; }, argc, 1) + RQ{argc}.get() + rq.get() + rq.value_or(7) - 11 +
	       fparam(W<int(int)>()) + gparam(W<int (*)(int)>()) + ns::qparam(W<void(double, char)>(), argc) - 7;
}
