/*
 * inline_static: a function-static variable of an inline function, seen
 * from a copy inlined at -O2: the copy's DWARF repeats the parameter but
 * not the static, which only the abstract function's DIE holds (as in
 * leveldb's cache lookups). The debugger must list it with the copy's
 * locals and find it by name, as GDB does.
 *
 * - inline_static.c:23 in lookup, inlined into main (-O2): lookups is 1,
 *   then 2.
 * Root cause: none (exits 0)
 * Symptom:    prints "inline_static 9 22" and exits with status 0
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/inline_static inline_static.c
 *             gcc -O2 -g -o ../build/inline_static-O2 inline_static.c
 */
#include <stdio.h>

volatile int sink;

static inline int lookup(int k) {
  static int lookups = 0;
  ++lookups;
  sink = k; /* in lookup */
  return k * 2 + lookups;
}

int main(int argc, char **argv) {
  (void)argv;
  int a = lookup(argc + 3);
  int b = lookup(a + 1);
  printf("inline_static %d %d\n", a, b);
  return 0;
}
