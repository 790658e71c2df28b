/* a.c and b.c each have a static named counter: 'a.c'::counter and
 * geta::counter name a.c's, main::counter b.c's (TestScopedNames). */
static int counter = 1;
int shared = 7;
int geta(void)
{
	static int calls = 40;
	return counter + calls++;
}
