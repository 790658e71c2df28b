/* A struct cast to a scalar or pointer type, as GDB's value_cast: of
   the same size its bytes retyped, else the type read at its address. */
struct pair { int a, b; };
struct big { long tag; int v[4]; };
struct pair gp = { 7, 9 };
struct big gb = { 0x1122334455667788, { 1, 2, 3, 4 } };
int main(void)
{
	struct pair lp = { 3, 4 };
	struct big *pb = &gb;
	return lp.a + gp.b + (int)pb->tag; // LINE:use
}
