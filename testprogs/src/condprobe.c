/*
 * condprobe: probe() is called 300 times with arguments of several
 * integer types (edge values among them: 0, -1, INT_MIN, UINT_MAX...) and
 * a struct pointer that is NULL one time in four, for the differential
 * test of breakpoint conditions: compiled to agent bytecode and evaluated
 * by gdbserver, against rrmcp's own evaluation at every call.
 * Root cause: none (exits 0)
 * Symptom:    prints a checksum and exits with status 0
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/condprobe condprobe.c
 *             gcc -O2 -g -o ../build/condprobe-O2 condprobe.c
 *             gcc -m32 -O0 -g -o ../build/condprobe-m32 condprobe.c
 */
#include <limits.h>
#include <stdio.h>

#define CALLS 300

enum mode { IDLE, RUN = 5, STOP = -2 };

struct item {
	int x;
	long y;
	unsigned char tag;
	struct item *next;
	short vals[4];
};

struct item items[3];
int seq;
long sum;
unsigned int flags = 0x80000001u;
enum mode mode = RUN;

static unsigned long long state = 88172645463325252ULL;

static unsigned long long rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static const long edges[] = {0, 1, -1, 2, 7, -7, 100, 255, 256, -128, 127, 32767,
			     -32768, 65535, INT_MAX, INT_MIN, (long)UINT_MAX, LONG_MAX, LONG_MIN, 1000000};

static long pick(void)
{
	unsigned long long r = rnd();
	if (r % 3 == 0)
		return edges[(r >> 8) % (sizeof edges / sizeof edges[0])];
	return (long)((r >> 4) % 2000) - 1000;
}

__attribute__((noinline)) void probe(int a, unsigned b, long c, signed char d, unsigned short e, struct item *p)
{
	sum += a + b + c + d + e + (p ? p->x : 0);
}

int main(void)
{
	for (int k = 0; k < 3; k++) {
		items[k].x = (int)pick();
		items[k].y = pick();
		items[k].tag = (unsigned char)pick();
		items[k].next = k < 2 ? &items[k + 1] : NULL;
	}
	for (seq = 0; seq < CALLS; seq++) {
		struct item *p = rnd() % 4 == 0 ? NULL : &items[rnd() % 3];
		if (p) {
			p->x = (int)pick();
			p->y = pick();
			p->tag = (unsigned char)pick();
			p->vals[seq % 4] = (short)pick();
		}
		mode = seq % 7 == 0 ? STOP : RUN;
		probe((int)pick(), (unsigned)pick(), pick(), (signed char)pick(), (unsigned short)pick(), p);
	}
	printf("%ld\n", sum);
	return 0;
}
