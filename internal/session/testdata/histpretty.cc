#include <map>
#include <list>
#include <set>
#include <unordered_map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>
struct Holder {
  std::map<int, int> m{{1, 10}, {2, 20}};
  std::variant<int, std::string> v{std::string("hello")};
  std::variant<int, double> vd{2.5};
  std::vector<int> vec{4, 5, 6};
  std::string s{"str"};
  std::optional<int> o{7};
  std::unique_ptr<int> up{new int(9)};
  std::list<int> l{1, 2};
  std::set<int> st{3};
  std::unordered_map<int, int> um{{5, 50}};
};
static int sink;
int use(Holder &h) { sink += (int)h.vec.size(); return sink; }
int main() { Holder h; return use(h) == 3 ? 0 : 1; }
