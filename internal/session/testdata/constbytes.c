// Locals gcc -O2 folds to constants: k (an integer, GDB's LOC_CONST) is
// listed by info locals; tag, scale and origin (blocks of bytes,
// LOC_CONST_BYTES) are not, though print shows them.
volatile int sink;
volatile double dsink;
struct pt { int x, y; };
__attribute__((noinline)) int f(int a) {
    const char tag[4] = "abc";
    const double scale = 2.5;
    const struct pt origin = {1, 2};
    int k = 7;
    sink = a * k + tag[1] + origin.y;
    dsink = a * scale;
    return sink; // LINE:use
}
int main(void) { return f(3) > 0 ? 0 : 1; }
