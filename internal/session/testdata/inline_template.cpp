// g++ -O2: maxof<int> is inlined into main. "break maxof" (no template
// arguments, as GDB's linespec allows) stops in the inlined maxof<int>,
// as GDB's does; rrmcp showed main, the breakpoint's function name not
// matching the instance's. TestInlineEntryMatchesGDB.
#include <cstdio>
volatile int g = 3;
template <typename T> static inline T maxof(T a, T b) {
  T r = a > b ? a : b;
  return r + g;
}
int main(int argc, char **) {
  int v = maxof(argc, 2);
  std::printf("%d\n", v);
  return 0;
}
