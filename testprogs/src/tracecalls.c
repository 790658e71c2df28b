/*
 * tracecalls: record() is called 2,000 times with int, long, pointer and
 * struct-by-value arguments, for rr_query kind calls: the tracepoint path
 * and the breakpoint path must give the same rows. other() is called once
 * on the way (a breakpoint there ends a query early); byheap() takes a
 * heap pointer, walk() a heap list (memory a tracepoint reaches only
 * through pointers), wild() once a pointer to nowhere; the last record()
 * call passes a heap pointer too.
 * Root cause: none (exits 0)
 * Symptom:    prints the totals and exits with status 0
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/tracecalls tracecalls.c
 */
#include <stdio.h>
#include <stdlib.h>

#define CALLS 2000

struct rec {
	int id;
	long val;
	const char *name;
};

struct rec recs[4] = {{1, 10, "one"}, {2, 20, "two"}, {3, 30, "three"}, {4, 40, "four"}};
long total;
int calls;

__attribute__((noinline)) void record(int i, long v, struct rec *r, struct rec s)
{
	calls++;
	total += v + r->val + s.id;
}

__attribute__((noinline)) void other(int i)
{
	total -= i;
}

__attribute__((noinline)) long byheap(struct rec *p)
{
	return p->val;
}

/* wild(p) only passes p on: the third of its four calls gets a pointer
 * to nowhere. */
__attribute__((noinline)) long wild(struct rec *p)
{
	return (long)p;
}

struct node {
	long v;
	struct node *next;
};

__attribute__((noinline)) long walk(struct node *n)
{
	return n->v + n->next->v;
}

int main(void)
{
	struct rec local = {7, 70, "local"};
	struct rec *heap = malloc(sizeof *heap);
	heap->id = 9;
	heap->val = 90;
	heap->name = "heap";
	for (int i = 0; i < CALLS; i++) {
		recs[i % 4].val += i;
		record(i, (long)i * 1000003L, &recs[i % 4], recs[(i + 1) % 4]);
		if (i == 1500)
			other(i);
	}
	for (int i = 0; i < 10; i++) {
		heap->val += i;
		total += byheap(heap);
	}
	for (int i = 0; i < 4; i++)
		calls += wild(i == 2 ? (struct rec *)0x10000 : heap) == 0;
	struct node *b = malloc(sizeof *b), *a = malloc(sizeof *a);
	a->next = b;
	b->next = NULL;
	for (int i = 0; i < 20; i++) {
		a->v = i;
		b->v = 100 + i * i;
		total += walk(a);
	}
	record(-1, -1, heap, local);
	printf("total %ld calls %d\n", total, calls);
	free(heap);
	free(a);
	free(b);
	return 0;
}
