/* Built -O2: mid's call of leaf is a jump (a tail call), so leaf returns
   straight to main; f's argument s is dead after its first use, and at
   f's second call of g only its value at f's entry (DW_OP_entry_value)
   says where it pointed. */
#include <stdio.h>
volatile int sink;
struct S { int mode; int hold; };
__attribute__((noinline)) int leaf(int x) { sink = x; return x * 3 + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x + 1); }
__attribute__((noinline)) void g(int x) { sink = x; }
__attribute__((noinline)) void f(struct S *s) {
  int m = s->mode;
  g(m);
  g(m + 1); /* second g */
}
int main(void) {
  struct S st = { 3, 4 };
  int r = mid(5);
  f(&st);
  printf("%d\n", r);
  return 0;
}
