/* Which enums GDB prints as flag combinations: every enumerator zero or
   a single bit (duplicates allowed); a multi-bit or negative one makes a
   plain enum, whose unnamed values print as numbers (xz's lzma_check:
   0, 1, 4, 10). */
enum dup { DA = 1, DB = 1, DC = 2 };
enum multi { MA = 1, MB = 6, MC = 8 };
enum gap { G0 = 0, G1 = 1, G4 = 4, G10 = 10 };
enum neg { NA = -1, NB = 2 };
enum overlap { OA = 3, OB = 6 };
enum bits { B0 = 0, B1 = 1, B2 = 2, B8 = 8 };

enum dup d = (enum dup)3;
enum multi m = (enum multi)15, m2 = (enum multi)4, m6 = MB;
enum gap g = (enum gap)5, g14 = (enum gap)14, g10 = G10;
enum neg n = (enum neg)6;
enum overlap o = (enum overlap)1;
enum bits b = (enum bits)11, b16 = (enum bits)16, b0 = B0;

int main(void)
{
	return 0;
}
