// Compile: gcc -O0 -g -o edge edge.c
// More C printing edge cases; here() is the stop.
#include <stdbool.h>
enum { ANON_A = 1, ANON_B = 2 } g_anon_enum = ANON_B;
char g_names[3][8] = {"abc", "de", ""};
bool g_bools[4] = {true, false, true, true};
const char **g_cpp;
const struct pt { int x, y; } g_cpt = {1, 2};
union blob { int i[2]; char c[8]; } g_blob = {{0x41424344, 0}};
enum mode { M_OFF, M_ON };
struct flags { enum mode m : 2; unsigned u : 3; } g_fl = {M_ON, 5};
long double g_lds[3] = {0.1L, -2.5L, 1e100L};
float _Complex g_fc = 1.5f + 2.0f * __extension__ 1.0fi;
int one(void) { return 1; }
int (*g_fparr[2])(void) = {one, 0};
struct node { int v; struct node *next; } g_ring[2] = {{1, &g_ring[1]}, {2, &g_ring[0]}};
int g_neg_enum_arr[3];
int node = 40; // a variable named like a struct tag
double g_dnan = __builtin_nan("0x1234");
char g_one = 0;
short g_shorts[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2};
void *g_vps[2] = {&g_one, 0};
const char *g_empty = "";
unsigned char g_uc_big[210];
__attribute__((noinline)) void here(void) { __asm__ volatile(""); }
int main(void)
{
	const char *s = "x";
	g_cpp = &s;
	for (int i = 0; i < 210; i++)
		g_uc_big[i] = (unsigned char)i;
	here();
	return one();
}
