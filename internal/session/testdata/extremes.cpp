// Values at the edges of readable memory, for TestMemoryEdgesMatchGDB:
// objects and strings that run into an unmapped page (GDB names the first
// byte it could not read), references to unreadable memory, and wide
// strings that are not aligned (a string reader stepped by zero there
// and never returned).
#include <sys/mman.h>
#include <string.h>
#include <wchar.h>
#include <uchar.h>

struct S {
	int a;
	long b;
	char c[16];
};
char buf[256] __attribute__((aligned(64)));

int main()
{
	char *page = (char *)mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(page + 4096, 4096);
	memset(page, 'A', 4096);
	memset(buf, 'A', 200);
	char *tail = page + 4096 - 4; // 4 characters, then unmapped memory
	wchar_t *wtail = (wchar_t *)(page + 4096 - 8);
	S *scross = (S *)(page + 4096 - 8); // a readable, b not
	char(*acr)[16] = (char(*)[16])(page + 4096 - 8);
	S &rcross = *scross;
	int &rmax = *(int *)0xfffffffffffffffcUL;
	wchar_t *w1 = (wchar_t *)(buf + 1);
	wchar_t *w62 = (wchar_t *)(buf + 62); // 2 bytes to the next 64-byte line
	char16_t *c63 = (char16_t *)(buf + 63);
	return tail[0] + (int)wtail[0] + scross->a + (*acr)[0] + rcross.a + (rmax != 0) + (int)w1[0] + (int)w62[0] + c63[0]; // LINE:use
}
