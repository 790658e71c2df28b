/* walk calls itself; gcc -O2 inlines it into itself several levels deep
   (max-inline-recursive-depth), and the levels' first ranges begin at
   one address, where each of them is a location of "break walk". */
volatile int sink;
static inline __attribute__((always_inline)) int inner(int x) { sink = x * 3; return sink + 1; }
static inline __attribute__((always_inline)) int outer(int x) { return inner(x + 1) * 2; }
struct N { struct N *kid, *next; int v; };
static int walk(struct N *n, int d) { int r = n->v + d; for (struct N *c = n->kid; c; c = c->next) r += walk(c, d + 1); return r; }
int main(int argc, char **argv) {
  int y = outer(argc);
  struct N c2 = {0, 0, 3}, c1 = {&c2, 0, 2}, root = {&c1, 0, 1};
  return walk(&root, y) & 0x7f;
}
