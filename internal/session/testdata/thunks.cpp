// Virtual calls through C++ thunks, for TestStepIntoThunkMatchesGDB: kind()
// through a virtual base (a virtual thunk), g() through a second base (a
// non-virtual thunk); step goes through the thunk into the function.
struct Base { int id = 1; virtual ~Base() = default; virtual int kind() const { return 0; } };
struct Left : virtual Base { int l = 2; };
struct Diamond : Left { int d = 4; int kind() const override { return 2 + id; } };

struct A { virtual int f() const { return 10; } long a = 1; };
struct B { virtual int g() const { return 20; } long b = 2; };
struct C : A, B { int g() const override { return 30 + (int)b; } };

int main()
{
  Diamond dm;
  Base *bp = &dm;
  C c;
  B *pb = &c;
  int x = bp->kind(); // LINE:call
  int y = pb->g();
  return x + y - 35;
}
