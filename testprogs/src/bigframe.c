/*
 * bigframe: parse_record() keeps a 300-byte record on its stack with the status
 * field first, so every store to the status is addressed 0x130 bytes
 * below the frame pointer: a 32-bit displacement (locals within 128 bytes
 * of it take an 8-bit one), the case a software watchpoint's decoding of
 * where a store wrote must get right.
 * Root cause: bigframe.c:32 (parse_record() marks the third record bad,
 *             though "gamma=3" is valid)
 * Symptom:    prints "bad record 3" and exits with status 1
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/bigframe bigframe.c
 */
#include <stdio.h>
#include <string.h>

struct record {
	int status;
	char text[296];
};

static const char *lines[] = {"alpha=1", "beta=2", "gamma=3", "delta=4"};

int parse_record(int n)
{
	struct record r;
	memset(r.text, 0, sizeof r.text);
	r.status = 0;
	strncpy(r.text, lines[n], sizeof r.text - 1);
	if (strchr(r.text, '=') == NULL)
		r.status = 1;
	if (n == 2)
		r.status = 2; /* BUG: gamma is valid */
	return r.status;
}

int main(void)
{
	int bad = 0;
	for (int i = 0; i < 4; i++) {
		if (parse_record(i) != 0) {
			printf("bad record %d\n", i + 1);
			bad = 1;
		}
	}
	return bad;
}
