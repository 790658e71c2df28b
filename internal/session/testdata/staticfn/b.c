static int helper(int x) { return x * 2; }
static int counter = 200;
int (*get_a(void))(int);
int use_b(int v) {
  int (*fp)(int) = helper;
  counter++;
  return fp(v) + get_a()(v);
}
int main(void) { return use_b(3) == 10 ? 0 : 1; }
