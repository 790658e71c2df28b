/*
 * stlsteps: small STL code whose calls g++ and clang++ inline at -O2
 * (string building, map lookups, vector pushes, std::sort with lambdas),
 * for stepping through inlined calls as GDB does
 * (TestStepInlinedMatchesGDB, which builds it with g++ -O2 -g and
 * clang++ -O2 -g). No bug: it prints a summary and exits 0.
 */
#include <map>
#include <string>
#include <vector>
#include <algorithm>
#include <cstdio>

static std::map<std::string, std::vector<int>> g_index;

__attribute__((noinline)) std::string make_key(const std::string &prefix, int i) {
    std::string k = prefix + "_" + std::to_string(i);
    if (i % 3 == 0)
        k += "!";
    return k;
}

__attribute__((noinline)) void fill(int n) {
    for (int i = 0; i < n; i++) {
        std::string key = make_key(i % 2 ? "odd" : "even", i % 5);
        auto &v = g_index[key];
        v.push_back(i * 7 % 11);
        v.push_back(i);
    }
}

__attribute__((noinline)) long sort_all() {
    long total = 0;
    for (auto &kv : g_index) {
        std::vector<int> &v = kv.second;
        std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
        for (int x : v)
            total += x;
    }
    return total;
}

__attribute__((noinline)) std::string summarize() {
    std::string out;
    int count = 0;
    auto add = [&](const std::string &k, const std::vector<int> &v) {
        out += k;
        out += "=";
        out += std::to_string(v.size());
        out += ";";
        count++;
    };
    for (const auto &[k, v] : g_index)
        add(k, v);
    out += "count=" + std::to_string(count);
    return out;
}

__attribute__((noinline)) int longest_key() {
    std::vector<std::string> keys;
    for (auto &kv : g_index)
        keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end(), [](const std::string &a, const std::string &b) {
        if (a.size() != b.size())
            return a.size() > b.size();
        return a < b;
    });
    return keys.empty() ? 0 : (int)keys.front().size();
}

int main(int argc, char **argv) {
    int n = argc > 1 ? 40 : 30;
    fill(n);
    long t = sort_all();
    std::string s = summarize();
    int l = longest_key();
    printf("%ld %d %s\n", t, l, s.c_str());
    return 0;
}
