// References to classes libstdc++ pretty-prints: GDB prints an lvalue
// reference as the printer's text alone, an rvalue reference (a
// structured binding of a tuple is one) as the reference, then the text.
#include <string>
#include <vector>
#include <tuple>
struct P { int x, y; };
std::tuple<int, std::string> mk() { return {1, "n=8"}; }
int use(const std::string &a, std::vector<int> &b, P &c) { return (int)a.size() + (int)b.size() + c.x; }
int main() {
    std::string s = "hello";
    std::vector<int> v{1, 2, 3};
    P p{4, 5};
    std::string &rs = s;
    std::string &&rrs = std::move(s);
    std::vector<int> &rv = v;
    P &rp = p;
    P &&rrp = std::move(p);
    std::vector<int> &&rrv = std::move(v);
    auto [n, tag] = mk();
    return use(rs, rv, rp) + n + (int)rrs.size() + (int)tag.size(); // LINE:use
}
