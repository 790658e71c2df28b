/*
 * cpp_lookup: names and types as C++ code uses them, the way real
 * libraries write them (tinyxml2's StrPair flags, leveldb's SkipList
 * members, zlib's state pointer), for the expressions and ptype an agent
 * asks at a stop.
 *
 * - ns::StrPair::Get: NEEDS_FLUSH, an enumerator of an unnamed enum of
 *   the class, named without its class from a member function (and as
 *   StrPair::NEEDS_FLUSH); kLimit, a static const member.
 * - inspect(list, st, text): ptype of a class template whose members are
 *   const pointers (Arena * const arena_); st is a null pointer whose
 *   members' types ptype and sizeof still answer (ptype st->codes,
 *   sizeof(st->codes[0])); text holds exactly 200 characters, which
 *   print in full, without "...".
 * - Printer::Push(const char*, const char*), one of two overloads (the other's int spelled count_t), as a
 *   breakpoint location names it with its parameters (typedefs as written too); helper, a static
 *   function, as cpp_lookup.cpp:helper; twice_int and twice_long,
 *   pointers to instances of a template function, printed
 *   <twice<int>(int)> as GDB names a function from its linkage name.
 * - local_kinds: a member function of a class local to the function
 *   (Handler::on_item) and a lambda, whose code g++ puts inside the class
 *   inside the function, with their arguments and locals.
 * Root cause: none (exits 0)
 * Symptom:    prints "lookup 295" and exits with status 0
 * Build (in testprogs/src):
 *             g++ -O0 -g -o ../build/cpp_lookup cpp_lookup.cpp
 */
#include <cstdio>
#include <cstring>

namespace ns {
class StrPair {
 public:
  enum { NEEDS_ENTITY_PROCESSING = 0x01, NEEDS_FLUSH = 0x100 };
  static const int kLimit = 7;
  int flags_ = NEEDS_FLUSH | NEEDS_ENTITY_PROCESSING;
  int Get() { return flags_ & NEEDS_FLUSH ? kLimit : 0; }
};
}  // namespace ns

struct Arena {
  int used;
};

template <typename Key>
struct SkipList {
  Arena* const arena_;
  int* const* heads_;
  Key first_;
  SkipList(Arena* a, Key k) : arena_(a), heads_(nullptr), first_(k) {}
  bool Contains(const Key& k) const { return k == first_; }
};

struct code {
  unsigned char op, bits;
  unsigned short val;
};
struct state {
  int mode;
  const struct code* codes;
};

static char text[256];

// Two overloads: a breakpoint location with a parameter list names one.
typedef int count_t; struct Printer {  // count_t: a parameter spelled by a typedef
  int n = 0;
  void Push(const char* name, const char* v) { n += (int)strlen(name) + (int)strlen(v); }
  void Push(const char* name, count_t v) {
    char buf[16];
    snprintf(buf, sizeof buf, "%d", v);
    Push(name, buf);
  }
};

// Template functions through pointers: <twice<int>(int)>, the name
// without the return type the mangled name carries.
template <typename T>
T twice(T x) { return x + x; }
int (*twice_int)(int) = twice<int>;
long (*twice_long)(long) = twice<long>;

// A static function, named by FILE:FUNCTION.
static int helper(int x) { return x * 2; }

int inspect(const SkipList<const char*>& list, struct state* st, const char* t) {
  return (list.Contains(t) ? 1 : 0) + (st ? st->mode : 0) + (int)strlen(t);
}

// A class local to a function and a lambda: g++ puts the code of their
// member functions inside the class, inside the function (no entry at the
// unit's level, as clang gives).
__attribute__((noinline)) int local_kinds(int x) {
  struct Handler {
    int base;
    int on_item(int v) {
      int t = v * 3 + base;
      return t;
    }
  };
  Handler h{x};
  int k = 2;
  auto lam = [&](int y) {
    int z = y * k;
    return z + 1;
  };
  return h.on_item(5) + lam(4);
}

int main() {
  ns::StrPair p;
  Arena a{42};
  memset(text, 'a', 200);
  SkipList<const char*> list(&a, text);
  Printer pr;
  pr.Push("a", 10);
  pr.Push("bb", "x");
  int n = p.Get() + inspect(list, nullptr, text) + a.used + pr.n + helper(3) + twice_int(1) + (int)twice_long(2) + local_kinds(3);
  printf("lookup %d\n", n);
  return 0;
}
