namespace outer::inner {
enum class Mode : unsigned char { Off = 0, Slow = 2, Fast = 5 };
struct Cfg { Mode mode; int level; };
int twice(int x) { return 2 * x; }
int counter = 7;
constexpr int kLimit = 42;
}  // namespace outer::inner

int use_alias(int v) {
  namespace oi = outer::inner;
  oi::Cfg c{oi::Mode::Fast, v};
  int r = c.level + static_cast<int>(c.mode) + oi::counter;
  if (c.mode == oi::Mode::Fast) r += oi::kLimit; // LINE:alias
  return r;
}

int use_decl(int v) {
  using outer::inner::twice;
  using outer::inner::Mode;
  using outer::inner::Cfg;
  using outer::inner::counter;
  Cfg c{Mode::Slow, v};
  int r = twice(c.level) + static_cast<int>(c.mode) + counter; // LINE:decl
  return r;
}

int main() { return use_alias(1) + use_decl(2) == 0; }
