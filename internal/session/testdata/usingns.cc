namespace helpers {
int hval = 11;
struct Hp { int h; };
int hfun(int v) { return v + 1; }
}
namespace dc {
using namespace helpers;
class Conv {
 public:
  enum Flags { NO_FLAGS = 0, EMIT_SIGN = 1, UNIQUE_ZERO = 8 };
  static const int kMax = 60;
  static int made;
  explicit Conv(int f) : flags_(f) { made++; }
  int flags_;
};
int Conv::made = 0;
struct Pt { int x, y; };
Conv::Flags g_fl = Conv::UNIQUE_ZERO;
int twice(int v) { return 2 * v; }
namespace deep {
int val = 42;
struct Deep { long d; };
Deep g_deep = {7};
}
int inside(const Conv &c)
{
	Hp hp{hval};
	return c.flags_ + hp.h + hfun(1); // LINE:inside
}
}
namespace other {
int thrice(int v) { return 3 * v; }
int ov = 5;
}
using namespace dc;
namespace A = dc::deep;
using other::thrice;

static int run(const Conv &conv, Pt p)
{
	int r = 0;
	r = conv.flags_ + p.x + twice(p.y); // LINE:run
	{
		using namespace other;
		r += ov; // LINE:block
	}
	return r + thrice(1) + A::val + inside(conv);
}
int main() { Conv c(9); return run(c, Pt{1, 2}) == 14 ? 0 : 1; }
