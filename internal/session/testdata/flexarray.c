/* Flexible array members: a char one prints its address and the string
   there, as GDB prints a char array of unknown bound (hiredis's sds headers). */
#include <stdlib.h>
#include <string.h>
struct __attribute__((__packed__)) hdr8 { unsigned char len; unsigned char alloc; unsigned char flags; char buf[]; };
struct hdr { int n; char buf[]; };
struct ihdr { int n; int v[]; };
int main(void)
{
	struct hdr8 *h = malloc(sizeof *h + 8);
	struct hdr *g = malloc(sizeof *g + 8);
	struct ihdr *k = malloc(sizeof *k + 8);
	h->len = 3; h->alloc = 7; h->flags = 1; strcpy(h->buf, "abc");
	g->n = 3; strcpy(g->buf, "xyz");
	k->n = 2; k->v[0] = 5; k->v[1] = 6;
	char *s = h->buf; // LINE:use
	return s[0] + g->buf[0] + k->v[0];
}
