/* clang -O2: the inlined copy of mid holds an inlined call of twice and
 * a block for the loop without DW_AT_abstract_origin, so its children are
 * not the origin's (GDB's are_isomorphic). GDB reads the origin's loop
 * block, which has no pc range, as part of mid's scope: at the first call
 * of leaf, outside the copy's loop block, it lists i and sq <optimized
 * out>; inside the loop it lists them twice, from the copy's block and
 * from the origin, where rrmcp lists them once. The struct unused keeps
 * one of its pieces. TestInheritedBlockVariables. */
#include <stdio.h>
struct pair { long a, b; };
volatile int g = 3;
__attribute__((noinline)) int leaf(int x) { return x * g; }
static inline int twice(int x) { return leaf(x) * 2; }
static inline int mid(int n) {
  struct pair unused = {n, 2};
  int r = twice(n);
  for (int i = 0; i < n; i++) {
    int sq = i * g;
    r += leaf(sq);
  }
  return r;
}
int main(int argc, char **argv) {
  int v = mid(argc + 1);
  printf("%d\n", v);
  return 0;
}
