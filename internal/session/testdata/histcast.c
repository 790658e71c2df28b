struct pt { int x, y; };
struct big { char name[8]; long v; };
struct pt g_p = {7, 9};
struct big g_b = {"shop", 5};
int main(void)
{
	struct pt l = {3, 4};
	g_p.x += l.y; // LINE:use
	return g_p.x + g_b.name[0];
}
