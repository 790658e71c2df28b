/* A step into a glibc function picked by an IFUNC (strlen) through the
   PLT: the first call goes through the dynamic linker, which calls the
   IFUNC's resolver; the second jumps to the bound function. */
#include <string.h>

volatile unsigned long n;

int main(int argc, char **argv)
{
	n = strlen(argv[0]); // LINE:first
	n += strlen(argv[0]); // LINE:second
	return n == 0;
}
