/*
 * cpp_containers: libstdc++ containers whose elements an expression
 * reaches without calling the program: a map looked up by key
 * (operator[], at, count, contains), a deque indexed (one grown at its
 * front, so that its first element is not at the start of a buffer), a
 * list's front and back, a shared_ptr's use count, the arrays of a
 * unique_ptr<T[]> and a shared_ptr<T[]>, a std::string compared with ==,
 * iterators of a map, an unordered map, a deque, a list and a vector
 * dereferenced, a std::optional's value.
 * The program calls each of these functions itself, so that GDB, which
 * calls them, finds them compiled in.
 *
 * - main, at the call of look(n): every container is alive.
 * Root cause: none (exits 0)
 * Symptom:    prints "containers 2410" and exits with status 0
 * Build (in testprogs/src):
 *             g++ -O0 -g -o ../build/cpp_containers cpp_containers.cpp
 */
#include <cstdio>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct Item {
  std::string name;
  int qty;
};

static long sink;

// look takes what main computed from its containers.
int look(long n) {
  sink += n;
  return (int)(sink & 0xff);
}

int main() {
  std::map<std::string, int> ages{{"alice", 30}, {"bob", 25}, {"carol", 41}};
  std::map<int, Item> items{{7, {"bolt", 100}}, {3, {"nut", 250}}, {40, {"gear", 4}}};
  std::multimap<int, int> versions{{1, 10}, {1, 11}, {2, 20}};
  std::set<long> primes{2, 3, 5, 7, 11, 13};
  std::unordered_map<std::string, long> sizes{{"small", 1}, {"large", 1000}};
  std::unordered_map<int, std::string> codes{{200, "ok"}, {404, "not found"}};
  std::unordered_set<int> seen{4, 8, 15};
  std::deque<int> grown;
  for (int i = 0; i < 300; i++)
    grown.push_back(i * 2);
  for (int i = 0; i < 5; i++)
    grown.push_front(-i - 1);
  std::deque<int> queue{10, 20, 30};
  std::list<std::string> names{"first", "middle", "last"};
  std::forward_list<int> chain{5, 6, 7};
  auto shared = std::make_shared<Item>(Item{"shared", 2});
  auto other = shared;
  std::unique_ptr<int[]> owned(new int[4]{9, 8, 7, 6});
  std::shared_ptr<long[]> pooled(new long[3]{100, 200, 300});
  std::string word = "middle";
  auto agesAt = ages.find("bob");
  auto codeAt = codes.find(404);
  auto grownAt = grown.begin() + 3;
  auto nameAt = names.begin();
  std::vector<int> nums{4, 5, 6};
  auto numAt = nums.begin() + 1;
  std::vector<int>::iterator nowhere;
  std::optional<std::string> maybe = std::string("yes");
  std::optional<int> none;

  long n = ages.count("bob") + ages.at("alice") + ages["carol"];
  n += items.count(3) + items.at(40).qty + items[7].qty;
  n += versions.count(1) + primes.count(11) + seen.count(8);
  n += sizes.count("large") + sizes.at("large") + codes.at(404).size() + codes[200].size();
  n += grown[0] + grown.at(7) + grown.front() + grown.back() + (long)grown.size() + queue[2];
  n += names.front().size() + names.back().size() + chain.front();
  n += shared.use_count() + owned[2] + pooled[1] + (word == names.front() ? 1 : 0);
  n += (long)names.size() + (chain.empty() ? 0 : 1);
  n += agesAt->second + codeAt->second.size() + *grownAt + nameAt->size() + *numAt + numAt[1];
  n += maybe->size() + (*maybe).size() + none.value_or(3) + nums.data()[2] + (nowhere == nums.end());
  int r = look(n);
  printf("containers %ld\n", n);
  return r == 0;
}
