/* Values in the x87 stack (TestX87Values): halfd, halff and halfl return
 * in st0 on i386, halfl on x86-64 too; at gcc -m32 -O2, close_enough's a
 * lives in st0 where it is inlined into check. */
#include <math.h>
#include <stdlib.h>
__attribute__((noinline)) double halfd(double x) { return x / 2; }
__attribute__((noinline)) float halff(float x) { return x / 2; }
__attribute__((noinline)) long double halfl(long double x) { return x / 2; }
static int close_enough(double a, double b) {
  double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  return fabs(a - b) <= m * 1e-12;
}
__attribute__((noinline)) int check(const char *s, double want) {
  double got = strtod(s, NULL);
  return close_enough(got, want);
}
int main(int argc, char **argv) {
  volatile double d = halfd(9.0);
  volatile float f = halff(5.0f);
  volatile long double l = halfl(7.0L);
  return check(argc > 1 ? argv[1] : "4.5", 4.5) && d + f + l == 10.5 ? 0 : 1;
}
