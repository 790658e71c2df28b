// <symbol> of a function whose DWARF name GDB cannot parse (an instance
// over a lambda, no linkage name): GDB spells its parameters with its type
// printer (call(const int &)), not the demangler's way.
#include <functional>
template <class F> struct H {
  static int call(const int &x) { return x + 1; }
};
int plain(const int &x) { return x + 2; }
int main() {
  auto l = [](int k) { return k * 2; };
  int (*fp)(const int &) = H<decltype(l)>::call;
  int (*gp)(const int &) = plain;
  std::function<int(int)> fn = l;
  int (*lp)(int) = l;
  return fp(1) + gp(2) + fn(3) + lp(4) + l(5) > 100; // LINE:use
}
