/* p *fp where fp points to a typedef of a function type: GDB writes the
   function type, not the typedef's name (json-c's lh_entry_free_fn). */
typedef void free_fn(int *);
typedef int (*cmp_t)(int, int);
static void my_free(int *p) { (void)p; }
static int my_cmp(int a, int b) { return a - b; }
struct tab { free_fn *ff; cmp_t cmp; };
struct tab g = { my_free, my_cmp };
int main(void)
{
	free_fn *f = my_free;
	int x = 1;
	f(&x); // LINE:use
	return g.cmp(x, 2);
}
