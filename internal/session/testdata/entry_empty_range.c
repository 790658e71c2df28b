/* gcc -O2: ptr's location list begins with an empty range at num's entry
 * (view 0: the value the caller passed, in rdi) before the range that
 * starts there too (rdi + 2, after "ptr += 2"). "break num" stops at the
 * entry, where GDB reads the empty range
 * (dwarf2_find_location_expression: an entry's value at the entry of the
 * block): ptr is the caller's. rrmcp skipped empty ranges and showed
 * ptr + 2. TestEmptyRangeAtEntry. */
#include <stdio.h>
__attribute__((noinline)) int num(const char *ptr) {
  int result = 0;
  ptr += 2;
  if (ptr[0] == 'x') {
    for (ptr++; *ptr != ';'; ptr++) result = result * 16 + (*ptr - '0');
    return result;
  }
  for (; *ptr != ';'; ptr++) result = result * 10 + (*ptr - '0');
  return result;
}
int main(int argc, char **argv) {
  const char *s = argc > 1 ? argv[1] : "&#65;";
  printf("%d\n", num(s));
  return 0;
}
