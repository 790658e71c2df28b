// i386 library for PLT tests (no libc needed).
// Built by the tests: gcc -m32 -shared -fPIC -nostdlib -o libext32.so ext32.c
int ext1(int x) { return x + 1; }
int ext2(int x) { return x + 2; }
