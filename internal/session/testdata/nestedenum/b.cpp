#include "s.h"
void ns::Pair::set(int f) { _flags = f | NEEDS_FLUSH; }
