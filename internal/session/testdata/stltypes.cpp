// libstdc++'s type printers in ptype and whatis, as GDB applies them:
// typedef names (std::string), containers without their default
// arguments (std::vector<int>), names inside declarations rewritten
// (Box<std::string>, std::vector<int> *), and the printers' own quirks
// (a pair argument keeps its full name, a pointer argument is "T*").
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

template <typename T> struct Box {
	T val;
	T *ptr;
	std::vector<T> many;
};
typedef std::vector<std::string> Names;

struct Rec {
	std::string name;
	std::string *pname;
	const std::string &rname;
	std::vector<int> *pv;
	std::vector<const char *> cv;
	std::vector<std::pair<std::string, int>> pairs;
	std::map<int, std::vector<int>> mv;
	Box<std::string> box;
	Names names;
	std::unique_ptr<int> up;
	std::vector<int> get(const std::string &key, std::vector<int> *out) const;
	Rec(const std::string &r) : rname(r) {}
};

std::vector<int> Rec::get(const std::string &key, std::vector<int> *out) const
{
	return {(int)key.size()};
}

int main()
{
	std::string s = "x";
	Rec r(s);
	Box<std::string> b;
	std::vector<std::string> vs{"a"};
	std::map<std::string, int> m{{"a", 1}};
	std::unordered_map<int, std::string> um;
	std::list<std::vector<std::pair<int *, bool>>> l;
	std::set<long> st;
	std::shared_ptr<int> sp = std::make_shared<int>(3);
	const std::vector<int> cvec{1};
	return r.get(s, nullptr).size() + b.many.size() + vs.size() + m.size() + um.size() + l.size() + st.size() + *sp + cvec.size(); // LINE:here
}
