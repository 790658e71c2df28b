#include "cpart.h"
// The C globals are not declared here: GDB would take a declaration's
// type from this unit, a C++ one.
class Shape { public: int sides = 4; virtual ~Shape() {} };
struct Box : Shape { node_t *n = nullptr; };
Shape *gshape;
Box gbox;
int main()
{
	Box b;
	b.n = chead();
	gshape = &b;
	node_t *h = b.n;
	int x = 0;
	x = cwalk(h, &b); // LINE:cxx
	return x;
}
