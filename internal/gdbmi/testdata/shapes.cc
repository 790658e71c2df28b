// Test target for the GDB/MI fallback: C++ values rrmcp's own evaluator
// leaves to GDB (libstdc++ containers, virtual classes, operators).
// Built by the test with
//   g++ -g -O0 -no-pie -fno-omit-frame-pointer -o shapes shapes.cc
#include <map>
#include <string>
#include <vector>

struct Shape {
	virtual ~Shape() {}
	virtual double area() const = 0;
	std::string name;
};

struct Circle : Shape {
	double r = 0;
	double area() const override { return 3 * r * r; }
};

struct Point {
	int x, y;
	Point operator+(const Point &o) const { return Point{x + o.x, y + o.y}; }
};

volatile int sink;

__attribute__((noinline)) void stop_here(const Shape *s) { sink = s->name.size(); }

__attribute__((noinline)) int inspect(int depth) {
	std::vector<int> v = {1, 2, 3};
	std::map<std::string, int> m = {{"one", 1}, {"two", 2}};
	Circle c;
	c.r = 2;
	c.name = "disk";
	Point p{3, 4};
	Point q = p + p;
	const Shape *sp = &c;
	stop_here(sp);
	c.r = 5;
	stop_here(sp);
	return v[1] + m["two"] + q.x - p.x + depth;
}

int main() { return inspect(7); }
