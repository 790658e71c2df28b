// CRTP inlined at -O2: this is a synthetic pointer (DW_OP_implicit_pointer
// to main's m), which casts keep synthetic.
int g_seen;
template <typename D> struct Counter {
  int count_ = 0;
  void tick() { ++count_; static_cast<D *>(this)->on_tick(count_); }
};
struct Meter : Counter<Meter> {
  long total = 0;
  void on_tick(int c) { total += c * 10; g_seen += c; } // LINE:use
};
int main() {
  Meter m;
  for (int i = 0; i < 3; ++i) m.tick();
  return (int)m.total - 60 + m.count_ - 3;
}
