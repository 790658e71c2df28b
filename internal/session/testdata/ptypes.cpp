// Types whose ptype, whatis and frame names rrmcp printed otherwise than
// GDB (round-8 differential on yaml-cpp): a nested type named from
// inside its namespace without the namespace, a template constructor
// (no return type), an operator template's name.
namespace ns {
struct Token {
	enum TYPE { A, B };
	TYPE t;
};

struct Parser {
	int handle(Token &tok);
};

int Parser::handle(Token &tok)
{
	return tok.t; // LINE:handle
}
} // namespace ns

// Members whose signatures name the class template with its arguments
// under const (GDB writes the parameters' names inside: Pair<T const, U>).
template <typename T, typename U = long> struct Pair {
	T a;
	U b;
	void take2(const Pair<const T, U> *o) { a = o ? o->a : a; }
};
template <typename E> struct Wrap {
	E *p;
	void set(const Wrap<const E> &o) { p = o.p ? p : p; }
};

// A class template's own typedefs: in its typedef lines GDB writes them by
// their full names (Tbox<T>::elem), in member signatures by their own.
template <typename T> struct Tbox {
	typedef const T elem;
	typedef elem &ref;
	T v;
	ref get() { return v; }
};

template <typename T> struct holder {
	T *p;
	template <typename U> holder(U *u) : p(u) {}
	holder() : p(nullptr) {}
};

struct S {
	int v;
};

template <typename T> int operator<<(S s, T t)
{
	return s.v + (int)t; // LINE:shift
}

int main()
{
	ns::Token tok{ns::Token::B};
	ns::Parser p;
	int x = 5;
	holder<int> h(&x);
	S s{1};
	Tbox<int> tb{3};
	Pair<int> pr{1, 2};
	pr.take2(nullptr);
	Wrap<int> wr{nullptr};
	wr.set(Wrap<const int>{nullptr});
	return p.handle(tok) + (s << 2) + *h.p + pr.a + tb.get();
}
