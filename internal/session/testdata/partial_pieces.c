/* clang -O2: key (struct sipkey, unsigned long k[2]) is described by one
 * piece, k[0] = 0 (DW_OP_lit0, DW_OP_stack_value, DW_OP_piece 8); k[1]
 * has none. rrmcp printed the whole array <optimized out> and could not
 * read key.k[0]; GDB 13 prints {k = {0, <synthetic pointer>}}, the
 * missing piece named wrongly. Reduced from expat's hash() (siphash).
 * TestPartialPieces. */
#include <stdio.h>
#include <string.h>
struct sipkey { unsigned long k[2]; };
struct st { unsigned long v0, v1; };
static void copy_salt(unsigned long salt, struct sipkey *key) { key->k[0] = 0; key->k[1] = salt; }
static void init(struct st *s, const struct sipkey *key) { s->v0 = 0x736f6d65UL ^ key->k[0]; s->v1 = 0x646f7261UL ^ key->k[1]; }
__attribute__((noinline)) void sink(struct st *s) { __asm__ volatile("" : : "r"(s) : "memory"); }
static unsigned long hash(unsigned long salt, const char *s) {
  struct st state;
  struct sipkey key;
  copy_salt(salt, &key);
  init(&state, &key);
  sink(&state);
  return state.v0 + strlen(s);
}
int main(int argc, char **argv) {
  unsigned long r = hash((unsigned long)argc * 12345, argv[0]);
  printf("%lu\n", r);
  return 0;
}
