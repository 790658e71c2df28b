// Pointers into the last page of the address space and across its top:
// every read there fails, and what depends on it says so as GDB does.
struct tok {
	const char *text;
	int line;
	char kind;
};

int main() {
	tok *p = (tok *)0xfffffffffffff000;
	tok &r = *p;
	char *c = (char *)0xffffffffffffffff;
	long *l = (long *)0xfffffffffffffffcL;
	char *s = (char *)0xffffffffffffffc0;
	int *a = (int *)0xfffffffffffffff8;
	int n = 3;
	return n + (p != 0) + (c != 0) + (l != 0) + (s != 0) + (a != 0) + (&r != 0); // LINE:use
}
