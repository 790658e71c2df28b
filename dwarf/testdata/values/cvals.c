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

int add(int a, int b) { return a + b; }
int mul(int a, int b) { return a * b; }

struct node n3 = {3, "three", NULL};
struct node n2 = {2, "two", &n3};
struct node n1 = {1, "one", &n2};
node_t *head = &n1;
int g_arr[10] = {1, 2, 3};
int g_zero[8];
int g_same[6] = {7, 7, 7, 7, 7, 9};
char g_str[] = "hello, world";
const char *g_cp = "pointer string";
char g_esc[] = "tab\there\nnl \"q\" \\ \001 \377";
enum color g_col = BLUE;
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

void here(void) {}

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
	(void)argc;
	(void)argv;
	s_counter++;
	here();
	return local + *lp + buf[0] + np->value + s_counter;
}
