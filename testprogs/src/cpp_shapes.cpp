/*
 * cpp_shapes: C++ with virtual dispatch, std::vector, std::map, std::string,
 * std::unique_ptr and exceptions.
 *
 * Bug:        Square derives from Rect but does not override kind(), so
 *             squares are counted under "rect". report() then asks the map
 *             for "square" with at(), which throws std::out_of_range; nothing
 *             catches it, so std::terminate() aborts. (parse_shape() also
 *             throws std::invalid_argument for a bad spec; that one is caught.)
 * Root cause: cpp_shapes.cpp:64
 * Crash:      cpp_shapes.cpp:100 (uncaught std::out_of_range thrown from map::at)
 * Symptom:    killed by SIGABRT ("terminate called after throwing an instance of 'std::out_of_range'")
 * Build (in testprogs/src):
 *             g++ -O0 -g -o ../build/cpp_shapes cpp_shapes.cpp
 *             g++ -O2 -g -o ../build/cpp_shapes-O2 cpp_shapes.cpp
 */
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace geo {

struct Point {
	double x, y;
};

class Shape {
public:
	explicit Shape(std::string name, Point origin) : name_(std::move(name)), origin_(origin) {}
	virtual ~Shape() = default;
	virtual double area() const = 0;
	virtual std::string kind() const = 0;
	const std::string &name() const { return name_; }

protected:
	std::string name_;
	Point origin_;
};

class Circle : public Shape {
public:
	Circle(std::string name, Point origin, double r) : Shape(std::move(name), origin), radius_(r) {}
	double area() const override { return 3.14159265358979 * radius_ * radius_; }
	std::string kind() const override { return "circle"; }

private:
	double radius_;
};

class Rect : public Shape {
public:
	Rect(std::string name, Point origin, double w, double h)
	    : Shape(std::move(name), origin), width_(w), height_(h) {}
	double area() const override { return width_ * height_; }
	std::string kind() const override { return "rect"; }

protected:
	double width_, height_;
};

class Square : public Rect { /* BUG: no kind() override, squares report "rect" */
public:
	Square(std::string name, Point origin, double side) : Rect(std::move(name), origin, side, side) {}
};

} // namespace geo

using geo::Shape;

static std::unique_ptr<Shape> parse_shape(const std::string &spec)
{
	// spec is "<kind> <name> <size>"
	char kind[16] = "", name[32] = "";
	double size;
	if (std::sscanf(spec.c_str(), "%15s %31s %lf", kind, name, &size) != 3)
		throw std::invalid_argument("bad shape spec: " + spec);
	std::string k = kind;
	if (k == "circle")
		return std::make_unique<geo::Circle>(name, geo::Point{0, 0}, size);
	if (k == "rect")
		return std::make_unique<geo::Rect>(name, geo::Point{1, 1}, size, size * 2);
	if (k == "square")
		return std::make_unique<geo::Square>(name, geo::Point{2, 2}, size);
	throw std::invalid_argument("unknown kind: " + k);
}

static std::map<std::string, int> count_kinds(const std::vector<std::unique_ptr<Shape>> &shapes)
{
	std::map<std::string, int> counts;
	for (const auto &s : shapes)
		counts[s->kind()]++;
	return counts;
}

static void report(const std::map<std::string, int> &counts, double total)
{
	int squares = counts.at("square"); /* CRASH */
	std::printf("%d squares, total area %.2f\n", squares, total);
}

int main()
{
	const std::vector<std::string> specs = {
	    "circle wheel 1.5", "rect door 2", "square tile 3", "hexagon nut 1", "square box 4", "garbage",
	};
	std::vector<std::unique_ptr<Shape>> shapes;
	for (const auto &spec : specs) {
		try {
			shapes.push_back(parse_shape(spec));
		} catch (const std::invalid_argument &e) {
			std::fprintf(stderr, "skipping: %s\n", e.what());
		}
	}
	double total = 0;
	for (const auto &s : shapes)
		total += s->area();
	std::map<std::string, int> counts = count_kinds(shapes);
	report(counts, total);
	return 0;
}

/* Runs before main (a constructor, defined last so that no line above
 * moves): zeroes the stack below it, where main's frame will be, so that
 * what a debugger shows of main's locals before their constructors run
 * (counts, total, the loop temporaries) is the same under every debug
 * server (gdbserver, qemu-i386), not what the loader left there. */
__attribute__((constructor, noinline)) static void zero_stack()
{
	char buf[1 << 16];
	__builtin_memset(buf, 0, sizeof buf);
	asm volatile("" : : "r"(buf) : "memory");
}
