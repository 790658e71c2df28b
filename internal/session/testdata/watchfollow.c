/* Watchpoints on expressions whose address depends on memory: j->a on
   the local j, gj->a on the global gj (moved in a callee, once to an
   object with the same value), arr[idx] on idx. GDB watches both and
   follows the expression. */
struct job {
	int a, b;
};
struct job js[3] = {{0, 1}, {0, 2}, {0, 3}};
struct job *gj = &js[0];
int idx;
int arr[4];

void moveg(int k)
{
	gj = &js[k];
}

int main(void)
{
	struct job *j = &js[0];
	j->a = 1; // LINE:local
	j = &js[1];
	j->a = 2;
	js[0].a = 5;
	j->b = 7;
	gj->a = 3; // LINE:global
	moveg(2);
	gj->a = 4;
	js[1].a = 4;
	moveg(1);
	idx = 1; // LINE:index
	arr[1] = 9;
	arr[0] = 8;
	idx = 0;
	return js[0].a + j->a + arr[idx];
}
