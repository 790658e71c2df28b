// A watchpoint set in a member function on a global (g_count) or on a
// static member named bare (instances): rrmcp's evaluation read this for
// a name its class does not have, and followed the stack slot.
int g_count = 0;

template <typename T> struct Ring {
  static int instances;
  T v;
  int push(T x) { v = x; return instances; }
};
template <typename T> int Ring<T>::instances = 0;

struct Box {
  int v;
  int get() const { return v + 1; }
};

static int churn(int n) {
  volatile int buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = n + i;
  return buf[3];
}

int main() {
  Box b{4};
  int r = b.get();
  r += churn(r);
  g_count = r;
  Ring<double> rd;
  Ring<int> ri;
  r += rd.push(1.5);
  r += ri.push(2);
  Ring<double>::instances++;
  r += churn(g_count);
  g_count++;
  Ring<double>::instances++;
  return r > 100;
}
