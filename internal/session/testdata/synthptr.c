// Pointers gcc -O2 optimizes away (DW_OP_implicit_pointer): msg and m2
// point to string literals kept as the bytes of a DW_TAG_dwarf_procedure
// that has no type; ip points to an array it keeps.
volatile int sink;
__attribute__((noinline)) int f(int a) {
    const char *msg = "hello";
    char *m2 = (char *)"world";
    int arr[2] = {a, a + 1};
    int *ip = arr;
    sink = a + msg[1] + m2[2] + ip[1];
    return sink; // LINE:use
}
int main(void) { return f(3) > 0 ? 0 : 1; }
