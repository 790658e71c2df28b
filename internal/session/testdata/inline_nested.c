/* clang -O2: limsize is inlined into resize and ispow into limsize; ispow
 * starts where "break resize" stops (past the prologue), limsize before:
 * the stop, its backtrace and its locals are in limsize, a step goes into
 * ispow without running, and the breakpoint is at the line of resize
 * that calls limsize (GDB's skip_prologue_sal). TestInlineEntryMatchesGDB;
 * also dwarf's TestBreakpointLineInsideInlinedCalls. */
#include <stdio.h>
struct T { unsigned lim; unsigned flags; };
static int ispow(struct T *t) {
  return (t->flags & 1) == 0 || (t->lim & (t->lim - 1)) == 0;
}
static unsigned limsize(struct T *t) {
  if (!ispow(t)) t->lim = 8;
  return t->lim;
}
__attribute__((noinline)) unsigned resize(struct T *t, unsigned n) {
  unsigned old = limsize(t);
  t->lim = n + old;
  return t->lim;
}
int main(void) {
  struct T t = {3, 1};
  printf("%u\n", resize(&t, 5));
  return 0;
}
