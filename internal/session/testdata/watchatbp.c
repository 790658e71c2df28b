int g1, g2;
static void touch(int *p) { *p += 3; }
int main(void) {
  g1 = 1; // LINE:set
  g2 = 2; // LINE:after
  touch(&g1);
  g1 = 4; // LINE:same
  g2 = g1 + 4; // LINE:sameafter
  return g2 > 100;
}
