/* clang -O2: the first instruction of the inlined call of f is line 13's
 * (f's printf); "break inline_line.c:13" stops there in f, which GDB
 * shows (the breakpoint location's symbol is f, the innermost function at
 * the line's address), and "break inline_line.c:17" in main, at a call of
 * f that starts where the line's code does, stops in main. rrmcp showed
 * main for both. TestInlineEntryMatchesGDB. */
#include <stdio.h>
struct P { int a; int b; };
volatile int g = 3;
static inline __attribute__((always_inline)) int f(int x) {
  struct P p = {x, x + 1};
  int unused = x * 3;
  printf("%d\n", x);
  return x + p.b + g;
}
int main(int argc, char **argv) {
  int v = f(argc) > 5;
  printf("%d\n", f(v + 2));
  return 0;
}
