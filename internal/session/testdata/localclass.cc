#include <vector>
int run(int base) {
  struct Acc {
    std::vector<int> v;
    int sum() const { int s = 0; for (int x : v) s += x; return s; }
    ~Acc() { v.clear(); }
  };
  std::vector<int> v{3, 1, 4};
  auto byval = [base, v](int k) { return base + k + (int)v.size(); };
  Acc acc{{1, 2, 3}};
  int r = byval(2) + acc.sum(); // LINE:use
  return r;
}
int main() { return run(100) == 112 ? 0 : 1; }
