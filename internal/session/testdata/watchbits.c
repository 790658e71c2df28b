/* Watchpoints on bit-fields: GDB watches the bytes that hold the field
   and reports its value; a write to the other bits of those bytes is no
   stop (the field did not change). */
struct flags {
  unsigned kind : 3;
  unsigned mode : 5;
  unsigned wide : 9;
  long tail;
};
struct flags g;

__attribute__((noinline)) void set_kind(struct flags *f, unsigned k) { f->kind = k; }
__attribute__((noinline)) void set_mode(struct flags *f, unsigned m) { f->mode = m; }

int main(void) {
  struct flags f = {1, 2, 3, 4};
  set_mode(&f, 7); // LINE:set
  set_kind(&f, 5);
  set_mode(&f, 9);
  f.wide = 300;
  set_kind(&f, 6);
  f.tail = 5;
  g.wide = f.wide + 1;
  return (int)(f.kind + f.mode + f.wide + f.tail + g.wide) & 1;
}
