// clang++ -O2: Val::Val(Kind) has an out-of-line copy (called from
// outline, which is not optimized) and an inlined one (in make). GDB's
// "break Val::Val(Kind)" has both locations, as "break Val::Val" has;
// rrmcp found only the out-of-line one where a parameter list was given.
// TestFunctionBreakpointsWithParams.
enum Kind { kNull, kInt, kObj };
struct Val {
  Val(Kind k = kNull);
  Kind kind;
  int n;
};
int counter;
__attribute__((noinline)) void note(Val *v) { counter += v->n; }
Val::Val(Kind k) {
  kind = k;
  n = k == kObj ? 10 : counter;
  note(this);
}
__attribute__((noinline)) int make(int i) {
  Val v(i & 1 ? kObj : kInt);
  return v.n + v.kind;
}
__attribute__((optnone)) int outline() {
  Val a;
  return a.n;
}
int main() { return outline() + make(1) + make(2); }
