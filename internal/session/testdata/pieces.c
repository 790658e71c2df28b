#include <stdio.h>
struct packed { unsigned a : 3; unsigned b : 5; int c : 4; _Bool flag : 1; unsigned long long wide : 40; };
struct ring { int data[4]; int head; };
struct inner { short x, y; };
struct outer { struct inner in; int arr[2]; int n; };
struct trio { const char *name; double d; int n; };
volatile int g_seed = 6;
__attribute__((noinline)) void use(int v) { __asm__ volatile("" :: "r"(v) : "memory"); }
int main(void)
{
  struct packed pk = {5, 17, -3, 1, 0x123456789aULL};
  struct ring r = {{0}, 0};
  struct outer o = {{1, 2}, {3, 4}, 0};
  struct trio t = {"three", 2.5, 1};
  for (int i = 0; i < g_seed; ++i) { // LINE:use
    r.data[r.head] = i; r.head = (r.head + 1) % 4; o.n += i; }
  use(r.head + o.n);
  use(t.n + (int)t.d);
  printf("%u %d\n", pk.a + pk.b, r.head);
  return pk.c + (int)pk.wide;
}
