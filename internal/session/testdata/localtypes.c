/* Types and enumerators declared inside a function (zstd's
   FIO_compressZstdFrame declares its speed_e so). */
typedef unsigned long long U64;

U64 work(const char *name, int n)
{
	typedef enum { noChange, slower, faster } speed_e;
	struct pair { int a, b; };
	speed_e sp = noChange;
	struct pair pr = {1, 2};
	U64 total = 0;
	for (int i = 0; i < n; i++) {
		total += name[i % 3] * i;
		if (total > 1000)
			sp = faster;
	}
	return total + sp + pr.a; // LINE:ret
}

int main(int argc, char **argv)
{
	return (int)work(argv[0], argc * 50) & 1;
}
