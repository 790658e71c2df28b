// i386 PLT user, built by the tests without libc as a PIC library
// (jmp *disp(%ebx) stubs) and a non-PIC executable (jmp *abs32 stubs):
//   gcc -m32 -shared -fPIC -nostdlib -o libuse32.so use32.c -L. -lext32
//   gcc -m32 -fno-pie -no-pie -nostdlib -o use32 use32.c -L. -lext32
int ext1(int);
int ext2(int);
int f(int x) { return ext1(x) + ext2(x); }
void _start(void) { f(1); for (;;) ; }
