// dynamic_cast evaluated by rrmcp, checked against the program's own
// casts (GDB 13 answers with the vtable's address): a downcast through a
// second base (the pointer moves), a cross cast, void *, a failed cast,
// and references.
struct A {
	virtual ~A() {}
	int a = 1;
};
struct B {
	virtual ~B() {}
	int b = 2;
};
struct C : A, B {
	int c = 3;
};

C obj;
B *pb = &obj;
A *pa = new A;
C *want_down;
A *want_cross;
void *want_void;
C *want_null;

int main()
{
	want_down = dynamic_cast<C *>(pb);
	want_cross = dynamic_cast<A *>(pb);
	want_void = dynamic_cast<void *>(pb);
	want_null = dynamic_cast<C *>(pa);
	return want_down->c + (want_null != nullptr); // LINE:here
}
