// Types in anonymous namespaces, named without the namespace, as C++
// (and GDB) find them: each unit's own (o.cc has another Anon).
namespace {
template <typename T, int N> struct Ring {
  static int instances;
  T buf[N];
  void push(T v) { buf[0] = v; }
};
template <typename T, int N> int Ring<T, N>::instances = 3;
struct Anon { static int hits; int a; };
int Anon::hits = 9;
}
namespace geo {
namespace {
struct Inner { short s; char c; };
}
int area(int k) {
  Inner in{3, 'x'};
  return in.s * k;
}
}
int other(int);
int main() {
  Ring<double, 4> r;
  r.push(1.5);
  Anon an{2};
  return Ring<double, 4>::instances + an.a + Anon::hits + other(1) + geo::area(2) > 100;
}
