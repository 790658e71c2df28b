/* gcc -O2: the inlined call of sq lists an empty range first, where its
 * DW_AT_entry_pc is, outside its code; "break sq" stops at the first
 * instruction of its first non-empty range, inside sq (GDB 13 ignores
 * DW_AT_entry_pc). TestInlineEntryMatchesGDB. */
#include <stdio.h>
volatile int g = 3;
static inline int sq(int x) {
  int r = x * x;
  r += g;
  return r;
}
int main(int argc, char **argv) {
  int a = sq(argc + 1);
  printf("%d\n", a);
  return 0;
}
