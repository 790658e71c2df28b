// Shared library for symbols tests.
// Built by the tests: gcc -g -fPIC -shared -o libsymt.so lib.c
#include <stdio.h>

int lib_counter = 3;
static int lib_hidden(int x) { return x * lib_counter; }

int lib_add(int a, int b) { return lib_hidden(a) + b; }

void lib_print(const char *s) { printf("lib: %s\n", s); }
