// inventory: STL containers and strings built from literals in calls,
// for the line-table tests at -O2, where the inlined allocator and
// string constructors put rows of several files at one address (a real
// program's core showed main at new_allocator.h:80 where GDB says
// inventory.cpp:50). It does not run: only its line table is read.
#include <map>
#include <vector>
#include <string>
#include <cstdio>
#include <cstdint>
#include <cmath>

struct Inventory {
    std::string owner;
    std::map<std::string, std::vector<int>> items;
    std::vector<std::string> tags;
    double weight;
};

__attribute__((noinline)) long total_count(const Inventory &inv, const std::string &prefix)
{
    long sum = 0;
    std::string last;
    for (auto it = inv.items.begin(); it != inv.items.end(); ++it) {
        if (it->first.compare(0, prefix.size(), prefix) != 0) continue;
        for (int v : it->second) sum += v;
        last = it->first;
    }
    std::printf("last=%s\n", last.c_str());
    return sum;
}

__attribute__((noinline)) void corrupt(Inventory &inv)
{
    // (the program this was cut from broke a map node here)
    auto it = inv.items.find("item-03");
    auto *node = reinterpret_cast<std::_Rb_tree_node_base *>(it._M_node);
    node->_M_right = nullptr;
}

__attribute__((noinline)) size_t count_tags(const Inventory &inv, char first)
{
    size_t n = 0;
    for (const std::string &t : inv.tags)
        if (!t.empty() && t[0] == first)
            n++;
    return n;
}

__attribute__((noinline)) std::string label(const Inventory &inv)
{
    return inv.owner + "/" + std::to_string(inv.items.size());
}

int main()
{
    Inventory inv;
    inv.owner = "warehouse-north-with-a-long-name";
    inv.weight = std::sqrt(2.0) * 10.5;
    for (int i = 0; i < 8; i++) {
        char k[16];
        std::snprintf(k, sizeof k, "item-%02d", i);
        inv.items[k] = std::vector<int>{i, i * 10, i * 100};
        inv.tags.push_back(std::string("tag") + k);
    }
    std::printf("total=%ld\n", total_count(inv, "item"));
    std::printf("%zu tags, %s\n", count_tags(inv, 't'), label(inv).c_str());
    corrupt(inv);
    std::printf("total=%ld\n", total_count(inv, "item"));
    return 0;
}
