#include "h.h"
int main() { K k{3}; int x = k.get(); return other(k) + x; }
