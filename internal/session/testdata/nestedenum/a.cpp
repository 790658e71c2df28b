#include "s.h"
int main() {
  ns::Pair p;          // this CU uses Pair but never its enum
  p.set(3);
  return p.flags() == 0x103 ? 0 : 1;
}
