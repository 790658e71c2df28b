#include "h.h"
int other(const K &k) { return k.get() * 2; }
