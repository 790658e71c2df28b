// ns::Pair is in both units' debug information; its enum and Buf only in
// b.cpp's copy, the second unit (TestNestedEnumOfClassInOtherUnit).
namespace ns {
class Pair {
public:
  void set(int f);
  int flags() const { return _flags; }
private:
  enum { NEEDS_FLUSH = 0x100, NEEDS_DELETE = 0x200 };
  struct Buf { int n; char c; };
  int _flags = 0;
};
}
