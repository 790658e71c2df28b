// Value-history copies of classes with a virtual base: the base is found
// through the address the copy was read at, as GDB keeps a history value's lval.
struct Named { virtual ~Named() = default; int hits = 1; };
struct Animal : virtual Named { int legs = 4; };
struct Dog : Animal { int good = 3; };
int main()
{
	Dog d;
	Animal *a = &d;
	return a->legs + d.good; // LINE:use
}
