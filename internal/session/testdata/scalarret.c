/* Scalars returned in two registers or in x87/SSE pairs, for
 * TestFinishScalarPairs: a long long in eax:edx on i386, complex floats
 * in xmm0(:xmm1) on x86-64 and eax:edx (float) or memory (double) on
 * i386, a complex long double in st0:st1, a __int128 in rax:rdx. */
#include <complex.h>
long long f_ll(long long x) { return x * 3; }
unsigned long long f_ull(void) { return 0xfedcba9876543210ULL; }
float _Complex f_cf(void) { return 3.0f + 4.0f * I; }
double _Complex f_cd(void) { return 1.0 + 2.0 * I; }
long double _Complex f_cld(void) { return 5.5L - 6.25L * I; }
short f_sh(void) { return -7; }
#ifdef __x86_64__
__int128 f_i128(void) { return ((__int128)1 << 100) + 5; }
#endif
int main(void)
{
	long long a = f_ll(1000000000000LL);
	unsigned long long u = f_ull();
	float _Complex cf = f_cf();
	double _Complex cd = f_cd();
	long double _Complex cld = f_cld();
	short sh = f_sh();
	int n = (int)(a + u + crealf(cf) + creal(cd) + creall(cld) + sh);
#ifdef __x86_64__
	n += (int)f_i128();
#endif
	return n & 1;
}
