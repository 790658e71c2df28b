struct Base { int id = 1; virtual ~Base() {} };
struct Left : virtual Base { int l = 10; };
struct Right : virtual Base { int r = 20; };
struct Diamond : Left, Right { int d = 30; };
struct A { int a = 1; };
struct B { int b = 2; virtual ~B() {} };
struct C : A, B { int c = 3; };
int main() {
  Diamond dia;
  C cc;
  Base *bp = &dia;
  Right *rp = &dia;
  B *pb = &cc;
  Base &br = dia;
  return bp->id + rp->r + pb->b + br.id - 24; // LINE:use
}
