/* main.c is built with -g; nodbg.c without, so its globals are only ELF symbols. */
extern int bump(int);
int main(void) { return bump(1) == 43 ? 0 : 1; }
