// S::get's this is dead after its first line (g++ -O2), and main.cpp,
// built without -g, gives no call-site value to recover it: at line 12
// the bare member a (this->a) is optimized out (TestMemberOfOptimizedThis).
struct S {
  int a;
  int get(int k) const;
};
__attribute__((noinline)) int ext(int k) { return k * 3; }
__attribute__((noinline)) int S::get(int k) const {
  int v = a;
  int r = ext(k);
  return r + v;
}
