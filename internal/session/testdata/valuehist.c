/* GDB's value history: finish records the returned value ($1), each
   print its value; $, $$, $N and $$N name them later, as copies. */
struct pt { int x, y; };
struct pt make(int a) { struct pt p = {a, a * 2}; return p; }
int twice(int a) { return a * 2; }
int g = 7;
int main(void) {
  struct pt q = make(3);
  int t = twice(q.y);
  g = t + 1; // LINE:after
  return t + q.x > 100;
}
