#include <cstdlib>
namespace ns {
typedef struct { int x, y; } pt_t;
typedef union { int i; float f; } num_t;
typedef enum { RED, BLUE } col_t;
pt_t gpt = {1, 2};
num_t gnum = {3};
col_t gcol = BLUE;
}
typedef struct { long a; struct { int in; } nested; } outer_t;
outer_t go = {5, {6}};
int main()
{
	div_t d = div(7, 2);
	ns::pt_t p = ns::gpt;
	return d.quot + p.x + go.nested.in; // LINE:use
}
