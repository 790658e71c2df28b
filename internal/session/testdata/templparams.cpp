// A function template's parameters are names in its frame, as GDB adds
// them to the function's block: T a type (ptype T, sizeof(T), (T)2.7), N a
// constant; also in a member function template (U) inside a class
// template (K is the class's).
#include <cstdio>

template <typename T, int N>
__attribute__((noinline)) T sum_first(const T *xs, int n)
{
	T acc{};
	for (int i = 0; i < N && i < n; i++)
		acc += xs[i];
	return acc; // LINE:use
}

template <typename K> struct Box {
	K k;
	template <typename U, long M> __attribute__((noinline)) U scaled(U by) const
	{
		U r = (U)k * by * M;
		return r; // LINE:member
	}
};

int main()
{
	int xs[] = {4, 9, 1, 7};
	double ds[] = {1.5, 2.5};
	Box<short> b{3};
	int s = sum_first<int, 3>(xs, 4);
	double d = sum_first<double, 2>(ds, 2);
	float f = b.scaled<float, 5L>(0.5f);
	std::printf("%d %g %g\n", s, d, f);
	return 0;
}
