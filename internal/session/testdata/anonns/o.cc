namespace {
struct Anon { long x, y, z; };
}
int other(int k) {
  Anon a{k, 2, 3};
  return (int)(a.x + a.y + a.z);
}
