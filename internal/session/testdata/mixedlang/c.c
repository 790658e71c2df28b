#include "cpart.h"
struct node n2 = { 2, 0, { 7 }, RED };
struct node n1 = { 1, &n2, { 5 }, GREEN };
struct node *head = &n1;
union u gu = { 5 };
enum color gc = GREEN;
struct pt { int x, y; } gpt = { 3, 4 };
struct pt *gpp = &gpt;
int (*gfp)(struct node *, void *) = cwalk;
struct node *chead(void) { return head; }
int cwalk(struct node *p, void *obj)
{
	int n = 0;
	for (; p; p = p->next)
		n += p->v; // LINE:c
	return n + (obj != 0);
}
