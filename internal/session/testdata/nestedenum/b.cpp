#include "s.h"
void ns::Pair::set(int f) { Buf b{f, 0}; _flags = b.n | NEEDS_FLUSH; }
