struct S { int m; S *next; };
struct P { S *p; S *operator->() const { return p; } };
S s2 = {7, 0};
S s = {3, &s2};
P pp = {&s2};
int main() { return s.m + pp->m; }
