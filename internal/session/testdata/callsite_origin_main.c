#include <stdio.h>
volatile long g;
void sink(long x) { g += x; }
long begin(long n);
long twice(long n);
int main(int argc, char **argv) { (void)argv; printf("%ld %ld\n", begin(argc + 4), twice(argc)); return 0; }
/* main of callsite_origin.c (TestCallSiteInAbstractOrigin). */
