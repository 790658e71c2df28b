// PIE program using libsymt.so, for symbols tests.
// Built by the tests:
//   gcc -g -fPIE -pie -o pie pie.c -L. -lsymt -Wl,-rpath,'$ORIGIN'
// With the argument "wait" it prints its own view of the dynamic linker's
// state (addresses of a few functions and every link_map entry), then
// "ready", and waits for a line on stdin, so a test can inspect it live.
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lib_add(int a, int b);
void lib_print(const char *s);

static int helper(int x) { return lib_add(x, 1) * 2; }

int global_data = 42;

int main(int argc, char **argv) {
	if (argc > 1 && strcmp(argv[1], "wait") == 0) {
		printf("main %p\n", (void *)&main);
		printf("helper %p\n", (void *)&helper);
		printf("lib_add %p\n", (void *)&lib_add);
		printf("puts %p\n", (void *)&puts);
		for (struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
			printf("lm %p 0x%lx %s\n", (void *)l, (unsigned long)l->l_addr, l->l_name);
		printf("ready\n");
		fflush(stdout);
		char buf[16];
		if (fgets(buf, sizeof buf, stdin) == NULL)
			return 0;
		return 0;
	}
	lib_print("hello");
	puts("pie");
	printf("%d\n", helper(argc) + global_data);
	return 0;
}
