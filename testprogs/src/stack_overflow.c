/*
 * stack_overflow: stack buffer overflow that corrupts a neighbouring local.
 *
 * Bug:        copy_field() copies the whole header name into the 8-byte
 *             `field` buffer with no bound; the bytes past the end overwrite
 *             the neighbouring local `counter`, which is then dereferenced.
 * Root cause: stack_overflow.c:34
 * Crash:      stack_overflow.c:35 (SIGSEGV: counter holds text bytes)
 * Symptom:    killed by SIGSEGV
 * Build (in testprogs/src):
 *             gcc -O0 -g -fno-stack-protector -o ../build/stack_overflow stack_overflow.c
 *             (-fno-stack-protector so distributions that enable the stack
 *             protector by default do not move `field` away from `counter`)
 */
#include <stdio.h>

struct stats {
	int headers;
};

static struct stats stats;

static void copy_field(char *dst, const char *src)
{
	while (*src != '\0' && *src != ':')
		*dst++ = *src++;
	*dst = '\0';
}

static int parse_header(const char *line)
{
	int *counter = &stats.headers;
	char field[8];
	copy_field(field, line); /* BUG: "Content-Length-Override" does not fit in field[8] */
	(*counter)++; /* CRASH */
	return field[0];
}

int main(void)
{
	parse_header("Host: example.org");
	parse_header("Content-Length-Override: 12");
	printf("headers: %d\n", stats.headers);
	return 0;
}
