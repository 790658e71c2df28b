/* Watchpoints in the frame of an inlined call (gcc -O2): provide's c and
   write_hlp's length belong to inlined frames, which end where the pc
   leaves the inlined call, as GDB's frame ids say; not when the function
   they are inlined into returns. */
#include <stdio.h>
#include <string.h>

struct ctx {
  long avail;
  long total;
  int rounds;
};
struct ctx g;

static inline void provide(struct ctx *c, long n) {
  c->avail = n; // LINE:provide
  c->total += c->avail;
}

__attribute__((noinline)) void consume(struct ctx *c) {
  c->rounds += c->avail > 5;
  c->avail = 0;
}

static inline int cmp_int(const long *x, long z) {
  long y = z;
  return *x < y ? -1 : *x > y;
}

__attribute__((noinline)) int div10(long *x, long *r) {
  *r = *x % 10;
  *x /= 10;
  return 0;
}

static inline int write_hlp(long *x, char **p, size_t buflen) {
  size_t length = 0;
  char *end = *p + buflen;
  long r;
  do {
    if (length >= buflen)
      return -1;
    div10(x, &r); // LINE:write_hlp
    *(--end) = (char)('0' + r);
    length++;
  } while (cmp_int(x, 0) != 0);
  memmove(*p, end, length);
  *p += length;
  return 0;
}

__attribute__((noinline)) int write_string(long *x, char *buf, size_t n) {
  char *p = buf;
  int ret = write_hlp(x, &p, n - 1);
  *p = 0;
  return ret;
}

int main(int argc, char **argv) {
  (void)argv;
  for (int i = 0; i < 3; i++) {
    provide(&g, argc + i * 10);
    consume(&g);
  }
  char buf[32];
  long v = 40213;
  int rc = write_string(&v, buf, sizeof buf);
  printf("%ld %d %s %d\n", g.total, g.rounds, buf, rc);
  return rc;
}
