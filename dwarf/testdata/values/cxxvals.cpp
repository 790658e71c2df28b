// Compile: g++ -O0 -g -o cxxvals cxxvals.cpp
// C++ types and values for the dwarf package's tests. here() is the stop point.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <list>
#include <array>
#include <atomic>
#include <deque>
#include <forward_list>
#include <queue>
#include <stack>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

namespace geo {

class Shape {
public:
	explicit Shape(const char *name, int kind) : name_(name), kind_(kind) { count_++; }
	virtual ~Shape() {}
	virtual double area() const = 0;
	const char *name_;
	int kind_;
	static int count_;
};

int Shape::count_ = 0;

class Circle : public Shape {
public:
	explicit Circle(double r) : Shape("circle", 1), r_(r) {}
	double area() const override { return 3.0 * r_ * r_; }
	double r_;
};

struct Point {
	int x, y;
	int sum() const { return x + y; }
};

template <typename T, int N>
struct Buffer {
	T data[N];
	int used;
};

} // namespace geo

struct VBase {
	int vb = 1;
};
struct VLeft : virtual VBase {
	int l = 2;
};
struct VRight : virtual VBase {
	int r = 3;
};
struct Diamond : VLeft, VRight {
	int d = 4;
};

enum class Mode : unsigned char { Off, On = 7 };
enum class Dup : short { X = 1, Y = 1, Z }; // two names for a value
Dup g_dup = Dup::Y;
enum class Width : std::uint16_t { Narrow = 1, Wide = 300 }; // a typedef as the underlying type: GDB prints unsigned short

struct Outer {
	struct Inner {
		int v;
	};
	enum Kind { K1, K2 };
	enum class Level { Low, High };
	Inner in;
	Kind k;
	Level lv;
};

namespace geo {
enum Dir { North, South };
}

struct Holder {
	int &ref;
	int &&rref;
	int geo::Point::*pm;
	int (geo::Point::*pmf)() const;
	char16_t c16;
	char32_t c32;
	wchar_t wc;
	Mode mode;
	std::nullptr_t np;
};

struct Counter {
	int hits = 0;
	int bump() { return ++hits; }
};

int g_int = 5;
int g_other = 6;
geo::Point g_pt = {3, 4};
geo::Buffer<int, 4> g_buf = {{1, 2, 3, 4}, 3};
Mode g_mode = Mode::On;
Width g_width = Width::Wide;
std::string g_s = "hello";
std::string g_long = "a string that is longer than fifteen characters";
std::string g_empty;
std::vector<int> g_vec = {1, 2, 3};
std::vector<std::string> g_vs = {"x", "yy"};
std::vector<int> g_vempty;
std::map<std::string, int> g_map = {{"a", 1}, {"b", 2}};
std::set<int> g_set = {3, 1, 2};
std::unordered_map<int, int> g_umap = {{1, 10}};
std::list<int> g_list = {4, 5, 6};
std::optional<int> g_opt = 9;
std::optional<int> g_noopt;
std::unique_ptr<geo::Shape> g_up = std::make_unique<geo::Circle>(2.0);
std::unique_ptr<int> g_upnull;
std::shared_ptr<int> g_sp = std::make_shared<int>(11);
std::shared_ptr<int> g_sp2 = g_sp;
std::weak_ptr<int> g_wp = g_sp;
std::shared_ptr<int> g_spnull;
geo::Circle g_circle(1.5);
geo::Shape *g_shape = &g_circle;
Diamond g_diamond;
Holder g_holder = {g_int, static_cast<int &&>(g_other), &geo::Point::y, &geo::Point::sum, u'A', U'B', L'C', Mode::Off, nullptr};
Counter g_counter;
Outer g_outer = {{3}, Outer::K2, Outer::Level::High};
geo::Dir g_dir = geo::South;
int &g_ref = g_int;
const char *const g_cstr = "const";
int g_iarr[3] = {1, 2, 3};
int (&g_aref)[3] = g_iarr;
std::vector<int> g_vzero(20);
std::map<std::string, std::vector<int>> g_nested = {{"k", {1, 2}}, {"z", {}}};
std::set<std::string> g_sset = {"b", "a"};
std::unordered_set<int> g_uset = {5};
std::multimap<int, int> g_mmap = {{1, 2}, {1, 3}};
std::list<std::string> g_lstr = {"p", "q"};
std::list<int> g_lempty;
std::vector<bool> g_vb = {true, false, true};
std::optional<std::string> g_ostr = "opt";
std::unique_ptr<int[]> g_uparr(new int[3]());
std::string g_bigs(300, 'z');
std::vector<int> g_vbig(250, 7);
std::shared_ptr<geo::Shape> g_spshape = std::make_shared<geo::Circle>(3.0);
std::pair<int, double> g_pair = {1, 2.5};
std::array<int, 3> g_arr3 = {1, 2, 3};
std::map<int, geo::Point> g_mpt = {{1, {5, 6}}};
std::vector<std::vector<int>> g_vv = {{1}, {2, 3}};
std::tuple<int, double, std::string> g_tup = {1, 2.5, "t"};
std::tuple<> g_tup0;
std::atomic<int> g_atom{42};
std::atomic<bool> g_abool{true};
std::deque<int> g_deq = {1, 2, 3};
std::deque<long> g_deqbig(300, 1);
std::forward_list<int> g_fl = {7, 8};
std::forward_list<int> g_flempty;
std::stack<int> g_stack;
std::queue<std::string> g_queue;
std::unordered_map<std::string, int> g_umaps = {{"one", 1}};
std::wstring g_ws = L"wide";
std::vector<int> &g_vref = g_vec;
std::string &g_sref = g_s;
struct RefHolder {
	std::string &s;
	std::vector<int> &v;
};
RefHolder g_refh = {g_s, g_vec};
std::vector<int>::iterator g_vit = g_vec.begin() + 1;
std::vector<int>::iterator g_vitnull;
std::list<int>::iterator g_lit = g_list.begin();
std::map<std::string, int>::iterator g_mit = g_map.begin();
std::unordered_map<int, int>::iterator g_uit = g_umap.begin();
std::set<int>::const_iterator g_sit = g_set.begin();
std::deque<int>::iterator g_dit = g_deq.begin();
std::string::iterator g_strit = g_s.begin();
std::string g_esc = "tab\there \"q\"";

__attribute__((noinline)) void here() { __asm__ volatile(""); }

int geo_use(const geo::Point &p, geo::Shape &s) { return p.x + (int)s.area(); }

// A type nested in a class template whose argument the user spells
// otherwise than DWARF does (const char * for char const*).
template <typename K, typename C> struct SL {
	struct Node {
		K key;
		Node *next;
	};
	Node *head = nullptr;
};
struct Cmp {};
SL<const char *, Cmp>::Node g_node = {"k", nullptr};
SL<const char *, Cmp> g_sl = {&g_node};

// Member templates: a constructor template's instance is no constructor
// to GDB's ptype (void TBox<double>(double)), and template arguments in
// method names are canonicalized (set<long>).
struct TBox {
	int v;
	TBox() : v(0) {}
	template <typename T> TBox(T x) : v((int)x) {}
	template <typename T> void set(T x) { v = (int)x; }
};
TBox g_tbox(2.5);

int main()
{
	geo::Point p = {1, 2};
	geo::Point &pr = p;
	const geo::Point *cpp = &p;
	std::vector<geo::Point> pts = {{1, 2}, {3, 4}};
	g_counter.bump();
	g_stack.push(1);
	g_stack.push(2);
	g_queue.push("front");
	g_deqbig.push_front(2);
	g_tbox.set(3L);
	here();
	return geo_use(pr, g_circle) + cpp->x + (int)pts.size() + g_holder.ref;
}
