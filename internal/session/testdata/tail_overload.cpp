// g++ -O2: both overloads of Box::get tail-call resolve (jmp), and main
// calls get(const char*). GDB's backtrace from resolve shows the tail-call
// frame Box::get between resolve and main, found from the call-site
// information; rrmcp found two candidate chains (one per overload) and
// showed none. TestTailCallOverloads.
#include <cstdio>
#include <cstring>
struct Box {
  int v[4];
  int &resolve(const char *key, size_t n);
  int &get(const char *key);
  int &get(const char *key, size_t n);
};
__attribute__((noinline)) int &Box::resolve(const char *key, size_t n) {
  int i = (int)(n + (unsigned char)key[0]) & 3;
  std::printf("resolve %s\n", key);
  return v[i];
}
__attribute__((noinline)) int &Box::get(const char *key) { return resolve(key, std::strlen(key)); }
__attribute__((noinline)) int &Box::get(const char *key, size_t n) { return resolve(key, n); }
int main(int argc, char **argv) {
  Box b = {{1, 2, 3, 4}};
  int r = b.get(argc > 5 ? argv[1] : "nums");
  r += b.get("x", 1);
  std::printf("%d\n", r);
  return 0;
}
