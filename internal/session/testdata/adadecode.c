/* ELF data symbols GDB's Ada decoder renames (cmark's cmark_strbuf__initbuf) */
unsigned char strbuf__initbuf[1];
unsigned char plainbuf[1];
int my__count = 3;
struct sb { unsigned char *ptr; int size; };
struct sb g_sb = { strbuf__initbuf, 0 };
int *g_ip = &my__count;
static int sink;
int do__it(int x) { return x + 1; }
int (*g_fp)(int) = do__it;
/* gcc function-local statics (name.N), GNAT-looking suffixes */
int *pick(int i)
{
	static int calls;
	static int tab__x[2];
	static int countB = 5;
	calls++;
	return i > 0 ? &tab__x[1] : i < 0 ? &countB : &calls;
}
int *p0, *p1, *p2;
int use(struct sb *b)
{
	sink += b->size; // LINE:use
	return sink;
}
int main(void)
{
	p0 = pick(0);
	p1 = pick(1);
	p2 = pick(-1);
	return use(&g_sb);
}
