/* gcc -O2: p, in registers while its members are used, has a location
 * list that ends before line 18, and q's first member is the entry value
 * of x, which main passes as its own entry value of argc, unknown: its
 * caller, in libc, has no call-site information. GDB's
 * print and info locals show each as <optimized out> (value_check_printable);
 * its MI, which leaves that check out, prints them member by member.
 * TestOptimizedOutStruct. */
struct P { long a; long b; };
__attribute__((noinline)) struct P mk(long x) { struct P p = {x, x * 3}; return p; }
__attribute__((noinline)) void use(long v) { asm volatile("" :: "r"(v)); }
__attribute__((noinline)) long f(long x) {
  struct P p = mk(x);
  struct P q = {x, 7};
  use(p.a);
  use(p.b);
  use(p.a + p.b);
  use(1);
  use(2);
  return 0;
}
int main(int argc, char **argv) { f(argc); return 0; }
