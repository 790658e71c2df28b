struct P { unsigned a : 3; _Bool flag : 1; unsigned b : 12; _Bool hi : 1; int n; };
struct P g = {5, 1, 300, 1, 9};
struct Q { unsigned char lo : 4; unsigned short mid : 10; unsigned long long wide : 40; };
struct Q q = {9, 700, 123456789};
int main(void)
{
	struct P pk = {3, 1, 77, 0, 7};
	return pk.n + g.n; // LINE:use
}
