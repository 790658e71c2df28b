// g++: frame 1 at the stop in leaf is Visitor::operator(), inlined into
// handler through visit; finish with it selected returns from leaf and
// steps out of the inlined operator(), into visit (GDB's finish from a
// selected inlined frame). TestInlineEntryMatchesGDB.
#include <cstdio>
__attribute__((noinline)) int leaf(int v) { std::printf("leaf %d\n", v); return v * 2; }
struct Visitor {
  int base;
  __attribute__((always_inline)) inline int operator()(int v) { return leaf(v + base); }
};
template <typename Vis> __attribute__((always_inline)) inline int visit(Vis&& vis, int arg) {
  return vis(arg);
}
__attribute__((noinline)) int handler(int x) {
  Visitor vis{10};
  int r = visit(vis, x);
  return r + 1;
}
int main() { return handler(5) == 31 ? 0 : 1; }
