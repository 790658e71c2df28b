// C++ test program for qualified names, methods, templates and inlining.
//   g++ -g -O0 -o shapes-O0 shapes.cpp ; g++ -g -O2 -o shapes-O2 shapes.cpp
// At -O2, main and checked get .cold parts (hot/cold splitting).
#include <cstdio>
#include <stdexcept>

namespace geo {

struct Shape {
	virtual ~Shape() {}
	virtual double area() const = 0;
	static int count;
};
int Shape::count = 0;

struct Circle : Shape {
	explicit Circle(double r) : r_(r) { count++; }
	double area() const override;
	double r_;
};

double Circle::area() const
{
	return 3.0 * r_ * r_; // LINE:circle_area
}

struct Square : Shape {
	explicit Square(double s) : s_(s) { count++; }
	double area() const override { return s_ * s_; }
	double s_;
};

template <typename T, int N> struct FixedBuf {
	T data[N];
	T sum() const
	{
		T s = T();
		for (int i = 0; i < N; i++)
			s += data[i]; // LINE:fixedbuf_sum
		return s;
	}
};

namespace {
__attribute__((noinline)) int hidden(int x) { return x + Shape::count; } // LINE:hidden
} // namespace

} // namespace geo

template <typename T> __attribute__((noinline)) T twice(T v)
{
	return v + v; // LINE:twice
}

__attribute__((noinline)) double total(const geo::Shape &a, const geo::Shape &b)
{
	return a.area() + b.area(); // LINE:total
}

// throws for big values: gcc -O2 moves main's handler to main.cold
__attribute__((noinline)) int checked(int v)
{
	if (v > 100)
		throw std::runtime_error("too big"); // LINE:checked_throw
	return v;
}

int main()
{
	geo::Circle c(1.0);
	geo::Square s(2.0);
	geo::FixedBuf<int, 4> buf = {{1, 2, 3, 4}};
	double t = total(c, s);
	int n = twice(buf.sum()) + geo::hidden(2);
	double d = twice(t);
	try {
		n = checked(n);
	} catch (const std::exception &e) {
		std::printf("error: %s\n", e.what()); // LINE:main_catch
		return 1;
	}
	std::printf("%g %d %g\n", t, n, d);
	return 0;
}
