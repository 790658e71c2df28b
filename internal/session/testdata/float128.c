static _Float128 g_q = 2.5;
static __float128 g_f = -0.75;
static long double g_ld = 2.5L;
static _Float128 g_third = 1.0Q / 3;
static _Float128 twice(_Float128 x) { return x * 2; }
int main(void)
{
	_Float128 a[2] = { 1.0, 1e300 };
	_Float128 r = twice(g_q);
	return (r == 5 && g_f < 0 && a[0] == 1 && g_ld > 0 && g_third > 0) ? 0 : 1; // LINE:use
}
