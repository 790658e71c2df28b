struct S { int a; int get(int k) const; };
int main() {
  S s{5};
  return s.get(2) == 11 ? 0 : 1;
}
