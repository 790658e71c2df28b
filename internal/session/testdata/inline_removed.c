/* clang -O2: "break sq" stops at the first instruction of sq inlined into
 * main, shown as sq; after the breakpoint is removed the stop still shows
 * sq, so finish returns from it and next steps inside it (GDB decides
 * once per stop). TestInlineEntryMatchesGDB. */
#include <stdio.h>
volatile int g = 3;
__attribute__((noinline)) int helper(int x) { return x * g; }
static inline int sq(int x) {
  int r = helper(x);
  r += g;
  return r;
}
int main(int argc, char **argv) {
  printf("start %d\n", argc);
  int a = sq(argc + 1);
  printf("%d\n", a);
  return 0;
}
