/*
 * crash_child: the program fork_exec runs; it dies with SIGSEGV.
 *
 * Bug:        parse_args() returns NULL when no "--name" argument is given,
 *             and greet() dereferences the result.
 * Root cause: crash_child.c:20
 * Crash:      crash_child.c:25 (SIGSEGV in greet())
 * Symptom:    killed by SIGSEGV
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/crash_child crash_child.c
 */
#include <stdio.h>
#include <string.h>

static const char *parse_args(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--name") == 0)
			return argv[i + 1];
	return NULL; /* BUG: callers expect a default name, not NULL */
}

static int greet(const char *name)
{
	int first = name[0]; /* CRASH */
	printf("hello, %s\n", name);
	return first;
}

int main(int argc, char **argv)
{
	return greet(parse_args(argc, argv)) == 0;
}
