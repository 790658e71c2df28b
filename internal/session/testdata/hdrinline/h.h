// An inline member of a header used from two units (a.cc, b.cc), for
// TestBreakHeaderLineOnce: the linker keeps one copy, whose line rows
// both units have.
struct K {
  int v;
  int get() const {
    return v + 1; // LINE:get
  }
};
int other(const K &k);
