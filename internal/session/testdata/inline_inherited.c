/* clang -O2: the inlined copy of mid leaves out the parameter b and the
 * local line, which have no location in it; GDB lists them from the
 * abstract origin as <optimized out> (info args: a, b; info locals: dead,
 * r, line). TestInheritedVariables. */
#include <stdio.h>
volatile int g = 3;
__attribute__((noinline)) int leaf(int x) { return x * g; }
static inline int mid(int a, int b) {
  int dead = a * 7;
  int line = b + 1;
  int r = leaf(a);
  return r + g;
}
int main(int argc, char **argv) {
  int v = mid(argc, 5);
  printf("%d\n", v);
  return 0;
}
