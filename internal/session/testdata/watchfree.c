/* bump is only ever called with &g, so gcc -O2 gives its parameter p the
   location DW_OP_addr g; DW_OP_stack_value, which needs no frame: a
   watchpoint on p->a lives on after bump returns, as GDB's. */
struct st { int a, b; };
static struct st g;
volatile int sink;
static __attribute__((noinline)) void bump(int v, struct st *p)
{
	if (v & 1)
		p->a++;
	else
		p->b++;
	sink = v;
}
int main(void)
{
	for (int i = 0; i < 4; i++)
		bump(i, &g);
	return g.a + g.b;
}
