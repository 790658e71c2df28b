/*
 * c_lookup: C's type names as real C code writes them (Lua's
 * "typedef struct Table {...} Table;" and "typedef union GCObject
 * {...} GCObject;"), for the casts and sizeof an agent writes at a stop:
 * in look(), *(Table *)o, ((Table *)o)->n, (GCObject *)o, sizeof(Table),
 * and a tag that only names a struct (struct leafrec; "leafrec" alone is no
 * type in C).
 * Root cause: none (exits 0)
 * Symptom:    prints "c_lookup 7" and exits with status 0
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/c_lookup c_lookup.c
 */
#include <stdio.h>

typedef struct Table {
	int n;
	struct Table *next;
} Table;

typedef union GCObject {
	Table t;
	long raw;
} GCObject;

struct leafrec {
	int v;
};

typedef struct Holder {
	void *gc;
	struct leafrec *first;
} Holder;

__attribute__((noinline)) int look(Holder *h) {
	return ((Table *)h->gc)->n + h->first->v;
}

int main(void) {
	static Table t = {5, 0};
	static struct leafrec nd = {2};
	Holder h = {&t, &nd};
	printf("c_lookup %d\n", look(&h));
	return 0;
}
