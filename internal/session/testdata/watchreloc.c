/* A local that its location list moves between a stack slot and a
   register within one inlined call (clang -m32 -O2: s1 in [esp+12], then
   for a few instructions in eax): a watchpoint set where it is in memory
   is evaluated again at a later stop where it is in the register, and
   becomes a software watchpoint there, as GDB's update_watchpoint makes
   it (round 18's msgpack pack_rec len, reduced). */
#include <string.h>
#include <stdio.h>

struct rec { const char *name; int n; int v[4]; };
static struct rec recs[3] = { {"alpha", 3, {1,2,3,4}}, {"beta", 2, {5,6,7,8}}, {"gamma-long-name", 4, {9,10,11,12}} };
char out[512];
int pos;

static __attribute__((noinline)) void put(const char *s, size_t n) { memcpy(out + pos, s, n); pos += n; }
static __attribute__((noinline)) void puti(int v) { pos += sprintf(out + pos, "%d,", v); }

static inline int pack(const struct rec *r, int a, int b, int c)
{
  int s0 = r->v[0] * a, s1 = r->v[1] * b, s2 = r->v[2] * c, s3 = r->v[3] + a;
  size_t len = strlen(r->name);
  put("name", 4);
  put(r->name, len);
  puti(s0); // LINE:watch
  puti(s1 + (int)len);
  put("n", 1);
  puti(r->n + s2);
  puti((int)len * s3);
  put(";", 1);
  puti(s0 + (int)len);
  puti(s1 * (int)len);
  puti(s2 - (int)len);
  return s3 + (int)len + s0 + s1 + s2;
}

int main(int argc, char **argv)
{
  int a = argc, b = argc * 3, c = argc + 7, t = 0;
  for (int i = 0; i < 3; i++)
    t += pack(&recs[i], a + i, b - i, c * i) + a + b + c;
  puts(out);
  return t & 1;
}
