/* A value watchpoint on st.ok, which gcc -O2 computes from the return
   register of a call (rsi < rax) and then drops: the change is seen at
   the call's return, and the watchpoint is deleted where the value is
   no longer known, as GDB does. */
#include <stdio.h>
struct stats {
  long in_len;
  long out_len;
  int ok;
};

__attribute__((noinline)) long work(long x) { return x * 3 + 1; }

__attribute__((noinline)) struct stats roundtrip(long n) {
  struct stats st = {0, 0, 0};
  long a = work(n);
  st.in_len = n;
  st.out_len = a;
  st.ok = a > n;
  return st;
}

int main(int argc, char **argv) {
  (void)argv;
  struct stats s = roundtrip(argc + 4);
  printf("%ld %ld %d\n", s.in_len, s.out_len, s.ok);
  return 0;
}
