/*
 * counter: a bug-free program for benchmarks and stepping tests.
 *
 * - hit(i) is called 10,000 times (breakpoint-hit throughput);
 * - chain(20) recurses 20 frames deep to bottom() (20-frame backtrace);
 * - a `struct node` list, so n->next->name can be evaluated in walk();
 * - globals of several types, and small loops for step/next/finish.
 * Root cause: none (exits 0)
 * Symptom:    prints "done" and exits with status 0
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/counter counter.c
 *             gcc -O2 -g -o ../build/counter-O2 counter.c
 */
#include <stdio.h>

#define HITS 10000
#define DEPTH 20

struct node {
	const char *name;
	int value;
	struct node *next;
};

long total;
int hits;
double ratio = 0.5;
char greeting[16] = "hello";
unsigned char bytes[64];

static struct node n3 = {"gamma", 3, NULL};
static struct node n2 = {"beta", 2, &n3};
static struct node n1 = {"alpha", 1, &n2};
struct node *list = &n1;

__attribute__((noinline)) void hit(int i)
{
	hits++;
	total += i;
}

__attribute__((noinline)) int bottom(int depth)
{
	return depth * 2;
}

__attribute__((noinline)) int chain(int depth)
{
	if (depth == 1)
		return bottom(depth);
	return chain(depth - 1) + 1;
}

__attribute__((noinline)) int walk(struct node *n)
{
	int sum = 0;
	while (n != NULL) {
		sum += n->value;
		n = n->next;
	}
	return sum;
}

__attribute__((noinline)) int square(int x)
{
	int y = x * x;
	return y;
}

int main(void)
{
	for (int i = 0; i < 64; i++)
		bytes[i] = (unsigned char)i;
	for (int i = 0; i < HITS; i++)
		hit(i);
	int depth = chain(DEPTH);
	int sum = walk(list);
	int sq = 0;
	for (int i = 0; i < 5; i++)
		sq += square(i);
	printf("hits %d total %ld depth %d sum %d sq %d %s\n", hits, total, depth, sum, sq, greeting);
	printf("done\n");
	return 0;
}
