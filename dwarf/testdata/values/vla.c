// Compile: gcc -O0 -g -o vla vla.c
// C99 variable-length arrays and a flexible array member; here() is the stop.
struct flex { int n; int data[]; };
struct flex *gf;
void here(void) {}
int f(int n) {
	int vla[n];
	int m2[2][n];
	for (int i = 0; i < n; i++) { vla[i] = i * 3; m2[0][i] = i; m2[1][i] = -i; }
	here();
	return vla[n - 1] + m2[1][0];
}
int main(void) { static char buf[sizeof(struct flex) + 12]; gf = (struct flex *)buf; gf->n = 3; return f(4); }
