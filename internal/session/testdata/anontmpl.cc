template <typename T, typename U>
struct V {
    union { T x; T r; };
    struct { U a; T *p; } inner;
    struct { U b; };
    T plain;
    T get() const { return x + plain; }
};
V<float, long> g_v;
int main() { g_v.x = 1; g_v.plain = 2; return (int)g_v.get() - 3; }
