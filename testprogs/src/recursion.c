/*
 * recursion: 20-deep recursion that crashes at the bottom.
 *
 * Bug:        the chain has 20 levels, but recurse() stops one level too
 *             late: at depth 20 it hands the last level's child (NULL) to
 *             leaf(). At the crash the stack is leaf, 20 x recurse, main.
 * Root cause: recursion.c:33
 * Crash:      recursion.c:27 (SIGSEGV in leaf())
 * Symptom:    killed by SIGSEGV
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/recursion recursion.c
 *             gcc -O2 -g -o ../build/recursion-O2 recursion.c
 */
#include <stdio.h>

#define LEVELS 20

struct level {
	int value;
	struct level *child;
};

static struct level levels[LEVELS];

static int leaf(const struct level *lv)
{
	return lv->value; /* CRASH */
}

static int recurse(const struct level *lv, int depth)
{
	if (depth == LEVELS)
		return leaf(lv->child); /* BUG: should be leaf(lv) */
	return lv->value + recurse(lv->child, depth + 1);
}

int main(void)
{
	for (int i = 0; i < LEVELS; i++) {
		levels[i].value = i + 1;
		levels[i].child = i + 1 < LEVELS ? &levels[i + 1] : NULL;
	}
	printf("sum = %d\n", recurse(&levels[0], 1));
	return 0;
}
