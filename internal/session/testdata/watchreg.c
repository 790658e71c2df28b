/* A watchpoint on p->a where p is kept in a register (gcc and clang
   -O2): GDB makes it a software watchpoint that evaluates p->a again at
   each step; it follows p and is deleted where p is no longer known, or
   where its frame is gone (setkey's tail call). */
#include <string.h>

struct S {
  int a;
  int b;
};
struct S g[4];
int sink;
char name[16] = "abc";

__attribute__((noinline)) struct S *pick(int i) { return &g[i & 3]; }
__attribute__((noinline)) void touch(int *x) {
  *x += 1;
  sink++;
}
__attribute__((noinline)) int other(int i) {
  sink += i;
  return sink;
}

__attribute__((noinline)) int work(int i) {
  struct S *p = pick(i);
  p->a = 5; // LINE:work
  touch(&p->a);
  int r = p->b + (int)strlen(name); /* through the PLT */
  p->a += r;
  touch(&g[1].a);
  r += other(i);
  g[1].a = 9;
  return r + other(i);
}

__attribute__((noinline)) int walk(struct S *p, int n) {
  int s = 0;
  for (int k = 0; k < n; k++) { // LINE:walk
    s += p->b;
    p++;
  }
  return s;
}

struct K {
  int nr;
  int *rk;
  int buf[4];
};

__attribute__((noinline)) void expand(int *rk, int bits) {
  for (int i = 0; i < 4; i++)
    rk[i] = bits * i;
}

__attribute__((noinline)) void setkey(struct K *ctx, int bits) {
  ctx->nr = bits / 10; // LINE:setkey
  ctx->rk = ctx->buf;
  expand(ctx->rk, bits);
}

/* The frame a software watchpoint watches has calls inlined into it: a
   callee called from one (alloc, from page_new inlined into split), a
   write inside one (set_length, inlined into decode). */
struct db {
  int depth;
  int n;
};
struct cur {
  struct db *db;
  int top;
};
__attribute__((noinline)) int alloc(struct cur *c, int n) {
  c->top += n;
  return n * 2;
}
static inline int page_new(struct cur *c, int n) {
  int rc = alloc(c, n);
  return rc + 1;
}
__attribute__((noinline)) int split(struct cur *c) {
  int rc = page_new(c, 1); // LINE:split
  c->db->depth++;
  rc += page_new(c, 2);
  c->db->depth++;
  return rc;
}

struct str {
  char *p;
  unsigned long len;
};
static inline void set_length(struct str *s, unsigned long n) {
  s->len = n;
  s->p[n] = 0;
}
static inline void push_back(struct str *s, char c) {
  s->p[s->len] = c;
  set_length(s, s->len + 1);
}
__attribute__((noinline)) int decode(const char *in, struct str *decoded) {
  while (*in) // LINE:decode
    push_back(decoded, *in++);
  return (int)decoded->len;
}

int main(void) {
  struct K k = {0, 0, {0}};
  int t = 0;
  for (int i = 0; i < 4; i++)
    g[i].a = 10 * i, g[i].b = i;
  for (int i = 1; i < 3; i++)
    t += work(i);
  t += walk(g, 4);
  setkey(&k, 128);
  struct db d = {1, 0};
  struct cur c = {&d, 0};
  t += split(&c);
  char buf[16];
  struct str str = {buf, 0};
  t += decode("rw17", &str);
  return (t + k.buf[3]) & 1;
}
