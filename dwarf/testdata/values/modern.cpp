// Compile: g++ -std=c++20 -O0 -g -o modern modern.cpp
// C++17/20 library types for the pretty-printer tests; here() is the stop.
#include <variant>
#include <string_view>
#include <bitset>
#include <span>
#include <string>
#include <functional>
#include <memory>
#include <chrono>
#include <any>
#include <map>
#include <optional>
#include <tuple>
#include <vector>
int arr[4] = {1, 2, 3, 4};
std::variant<int, std::string> g_var = std::string("vs");
std::variant<int, double> g_var2 = 7;
std::string_view g_sv = "view";
std::bitset<10> g_bits(0x205);
std::span<int> g_span(arr, 3);
std::function<int(int)> g_fn = [](int x) { return x; };
std::chrono::milliseconds g_ms(1500);
std::unique_ptr<int[]> g_uarr;
std::weak_ptr<int> g_wpe;
std::initializer_list<int> g_il = {4, 5};
// One contained object (SingleObjContainerPrinter): "containing" where
// the contained value's printer has children, even none.
struct S {
	int a;
};
std::optional<std::vector<int>> g_oe = std::vector<int>{};
std::optional<std::map<int, int>> g_om = std::map<int, int>{{1, 2}};
std::optional<S> g_os = S{4};
std::optional<std::string> g_ostr = std::string("x");
std::optional<std::tuple<int, int>> g_ot = std::make_tuple(1, 2);
std::variant<std::vector<int>, int> g_ve;
std::variant<S, int> g_vs;
std::variant<std::map<int, std::string>, std::string> g_vm = std::map<int, std::string>{{5, "six"}};
std::any g_ae;
std::any g_ai = 5;
std::any g_astr = std::string("any");
std::any g_av = std::vector<int>{1, 2};
std::any g_as = S{7};
std::any g_am = std::map<int, std::string>{{1, "m"}};
// The variant's 'array' hint where the contained printer has none
// (shared_ptr, unique_ptr, tuple): {0x…}, not {get() = 0x…}.
std::variant<int, std::shared_ptr<int>> g_vsp = std::make_shared<int>(3);
std::variant<int, std::unique_ptr<int>> g_vup = std::make_unique<int>(4);
std::variant<int, std::tuple<int, int>> g_vtu = std::make_tuple(5, 6);
std::optional<std::shared_ptr<int>> g_osp = std::make_shared<int>(7);
// A contained printer that raises in its to_string: the whole value is
// that error (a shared_ptr whose control block cannot be read).
std::optional<std::shared_ptr<int>> g_obad = std::shared_ptr<int>();
void here()
{
	// g_obad's shared_ptr: a pointer and a control block nowhere
	auto *raw = reinterpret_cast<void **>(&*g_obad);
	raw[0] = reinterpret_cast<void *>(0x10);
	raw[1] = reinterpret_cast<void *>(0x100000007);
}
int main() { here(); return g_fn(1); }
