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
	return p.handle(tok) + (s << 2) + *h.p;
}
