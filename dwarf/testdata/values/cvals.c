// Compile: gcc -O0 -g -o cvals cvals.c
// Values and types for the dwarf package's C tests. here() is the stop point.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct node {
	int value;
	const char *name;
	struct node *next;
};

enum color { RED, GREEN = 5, BLUE };
enum alias { A_ZERO, A_NONE = 0, A_ONE, A_UNIT = 1 }; /* two names for a value */

union num {
	int i;
	float f;
	unsigned char b[4];
};

struct bits {
	unsigned a : 3;
	signed b : 5;
	unsigned c : 1;
	int d;
	unsigned long e : 40;
};

typedef struct node node_t;
typedef int (*binop)(int, int);

struct mixed {
	char c;
	signed char sc;
	unsigned char uc;
	short s;
	unsigned short us;
	long l;
	unsigned long ul;
	long long ll;
	float f;
	double d;
	long double ld;
	bool flag;
	int arr[3];
	char name[16];
	int grid[2][3];
	enum color col;
	union num u;
	struct bits bf;
	binop op;
	void *vp;
	const volatile int cvi;
	_Atomic int ai;
	int *nullp;
	double darr[4];
};

int add(int a, int b)
{
	static int calls;
	calls++;
	return a + b;
}
int mul(int a, int b) { return a * b; }

struct node n3 = {3, "three", NULL};
struct node n2 = {2, "two", &n3};
struct node n1 = {1, "one", &n2};
node_t *head = &n1;
typedef struct node *node_p;
node_p g_np = &n2; /* pointer arithmetic on it strips the typedef */
int g_arr[10] = {1, 2, 3};
int g_zero[8];
int g_same[6] = {7, 7, 7, 7, 7, 9};
char g_str[] = "hello, world";
const char *g_cp = "pointer string";
char g_esc[] = "tab\there\nnl \"q\" \\ \001 \377";
enum color g_col = BLUE;
enum alias g_alias = A_UNIT;
enum color g_badcol = (enum color)42;
binop g_op = add;
binop g_ops[2] = {add, mul};
double g_d = 3.141592653589793;
float g_f = 0.1f;
double g_dz = 0.0;
double g_big = 1e300;
double g_neg = -2.5;
long double g_ld = 1.5L;
short g_short = -12;
unsigned long g_ulong = 18446744073709551615UL;
long long g_ll = -9223372036854775807LL - 1;
unsigned char g_uc = 200;
signed char g_sc = -3;
char g_c = 'A';
char g_nl = '\n';
bool g_bool = true;
int32_t g_i32 = -5;
uint8_t g_u8 = 255;
int *g_ip = &g_arr[1];
int **g_ipp = &g_ip;
void *g_vp = &n1;
struct mixed g_mixed;
struct node g_nodes[3];
int g_matrix[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
unsigned g_u = 4000000000u;
size_t g_size = 42;
char *g_nullstr = NULL;
const char *g_strs[3] = {"a", "bb", NULL};

static int s_counter = 7;

enum flags { F_A = 1, F_B = 2, F_C = 4 };
enum flags g_flags = F_A | F_C;
enum flags g_flags_unk = (enum flags)9;
enum flags g_flags_zero = (enum flags)0;
struct anon {
	int kind;
	union {
		int i;
		float f;
	};
	struct {
		short x, y;
	} pt;
};
struct anon g_anon = {1, {.i = 5}, {2, 3}};
int g_big_arr[300] = {[0] = 1, [150] = 2, [299] = 3};
char g_zeros[32];
char g_mostly[40] = "ab";
char g_rep[30] = "xaaaaaaaaaaaaaaaaaaaay";
wchar_t g_wstr[] = L"wide";
long double g_ldarr[2] = {1.25L, -0.5L};
char g_longstr[300];
const char *g_longp;
_Complex double g_cplx = 1.0 + 2.0 * __extension__ 1.0i;
__int128 g_i128 = -5;
unsigned __int128 g_u128 = 12345;
int (*g_parr)[10] = &g_arr;
struct node *g_selfp = &n3;
float g_fnan = __builtin_nanf("");
double g_inf = __builtin_inf();
double g_tiny = 5e-324;
unsigned char g_bytes[5] = {1, 2, 255, 0, 'z'};
char g_bigzero[3000] = "path";
char g_mixrun[400];
signed char g_sbytes[3] = {-1, 65, 0};

__attribute__((noinline)) void here(void) { __asm__ volatile(""); }

int main(int argc, char **argv)
{
	struct mixed m = {
		.c = 'x', .sc = -1, .uc = 255, .s = -300, .us = 65535,
		.l = -123456789012L, .ul = 123456789012UL, .ll = 1LL << 40,
		.f = 1.5f, .d = 2.25, .ld = 3.0L, .flag = true,
		.arr = {1, 2, 3}, .name = "mixed",
		.grid = {{1, 2, 3}, {4, 5, 6}},
		.col = GREEN, .u = {.i = 0x41424344},
		.bf = {.a = 5, .b = -7, .c = 1, .d = 99, .e = 0x123456789aUL},
		.op = mul, .vp = &n2, .cvi = 17, .ai = 23, .nullp = NULL,
		.darr = {0.5, -1.25, 1e-10, 100},
	};
	int local = 10;
	int *lp = &local;
	char buf[8] = "abc";
	struct node *np = &n1;
	memcpy(&g_mixed, &m, sizeof m);
	g_nodes[1] = n2;
	for (int i = 0; i < 299; i++)
		g_longstr[i] = 'a' + i % 26;
	g_longp = g_longstr + 10;
	for (int i = 0; i < 399; i++)
		g_mixrun[i] = i < 150 ? 'a' + i % 3 : (i < 250 ? 'q' : 'r');
	(void)argc;
	(void)argv;
	s_counter++;
	add(1, 2);
	add(3, 4);
	here();
	return local + *lp + buf[0] + np->value + s_counter;
}
