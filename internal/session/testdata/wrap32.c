/* Addresses an i386 program computes wrap at 2^32, for
   TestI386AddressesWrapMatchesGDB: pmax[1] is at 0x0, buf[0xffffffff]
   is buf[-1]. */
char pad[4] = "pad";
char buf[64] = "hello";
int main(void)
{
	char *pmax = (char *)0xffffffffU;
	int *ipm4 = (int *)0xfffffffcU;
	return (pmax != 0) + (ipm4 != 0) + buf[0] + pad[0]; // LINE:use
}
