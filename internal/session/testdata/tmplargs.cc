#include <map>
#include <memory>
#include <string>
#include <vector>
#include <utility>
template <typename A, typename B> struct Two { A a; B b; };
int main()
{
	std::string s = "x"; std::wstring ws = L"y";
	std::map<std::string, std::unique_ptr<int>> m;
	m["a"] = std::make_unique<int>(3);
	std::pair<const std::string, int> pr{"k", 1};
	std::pair<std::string *, const std::string *> pp{nullptr, nullptr};
	std::pair<volatile std::string *, int> pv{nullptr, 0};
	Two<const std::string, std::vector<std::string>> two{"x", {}};
	Two<std::pair<const std::string, long>, std::string &> *tp = nullptr;
	std::vector<std::pair<const std::string, int>> vp;
	std::pair<const std::wstring, std::unique_ptr<int>> wp;
	for (const auto &kv : m)
		return kv.second ? 1 : 0; // LINE:use
	return 0;
}
