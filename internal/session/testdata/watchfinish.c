/* finish out of conv with a software watchpoint on p->x (p kept in a
   register): the finish ends where the watchpoint's frame is left. */
struct S { int x; int y; };
int sink[64];
static inline void fill(int *out, int n, int seed) {
  for (int i = 0; i < n; i++) out[i] = seed * i + (i >> 1);
}
__attribute__((noinline)) void conv(struct S *p, int n) {
  int v = p->x;
  fill(sink, n, v);
  sink[0] += 1;
}
int main(void) {
  struct S s = {3, 4};
  conv(&s, 40);
  return sink[5] == 15 ? 0 : 1;
}
