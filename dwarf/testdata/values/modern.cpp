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
void here() {}
int main() { here(); return g_fn(1); }
