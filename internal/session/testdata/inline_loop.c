/* gcc -O2: fill is inlined into main, and its loop runs 100000 times.
 * A finish out of fill (from a breakpoint in the loop) and a next over
 * line 21 go through the whole loop, as GDB's do (it stops at line 22 in
 * main; its nexts from line 20 stop at 12, 21 and 22). rrmcp gave up
 * after 200000 steps of the loop; range stepping it instruction by
 * instruction took 84 s where continuing to the loop's exits takes a
 * trap. TestInlineLoopFinish. */
#include <stdio.h>
#include <stdlib.h>
static inline long fill(char *buf, long n) {
  long sum = 0;
  for (long i = 0; i < n; i++) {
    buf[i] = (char)(i * 7);
    sum += buf[i];
  }
  return sum;
}
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  char *buf = malloc(n);
  long s = fill(buf, n);
  printf("%ld\n", s);
  free(buf);
  return 0;
}
