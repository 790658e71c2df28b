/*
 * cpp_broken: libstdc++ containers whose insides point nowhere, as a
 * program sees them before they are constructed or after they are freed
 * (a local not yet reached, a freed object still referenced). The
 * debugger's printers must say that they cannot read them, as GDB's do,
 * instead of printing a container from garbage.
 *
 * - inspect(b, good) is the stop to look from: *b is bytes written by
 *   hand, never constructed (x86-64 layouts of libstdc++'s std::string,
 *   list, forward_list, map, unordered_map and vector); good is a real list,
 *   gone a reference to an object at 0x10.
 * Root cause: none (exits 0)
 * Symptom:    prints "broken 4" and exits with status 0
 * Build (in testprogs/src):
 *             g++ -O0 -g -o ../build/cpp_broken cpp_broken.cpp
 */
#include <cstdio>
#include <cstring>
#include <forward_list>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

struct Broken {
	std::string str;                          // data pointer 0, length 33
	std::string str_bad;                      // data pointer 0x10, length 5
	std::list<int> lst;                       // first link 0
	std::forward_list<int> flst;              // first link 0x10
	std::map<std::string, int> m;             // 11 nodes, leftmost link 0
	std::unordered_map<std::string, int> um;  // 3 elements, first node 0x20
	std::vector<int> vec;                     // storage at 0x20, length 4
};

alignas(Broken) static unsigned char raw[sizeof(Broken)];

static unsigned char *at(void *member) { return static_cast<unsigned char *>(member); }
static void poke(unsigned char *p, unsigned long v) { std::memcpy(p, &v, sizeof v); }

__attribute__((noinline)) int inspect(Broken *b, const std::list<int> &good, const std::string &gone) {
	return (int)good.size() + (b != nullptr) + (&gone != nullptr);
}

int main() {
	// Real containers of the same types, so that their DWARF is there.
	std::list<int> good{1, 2, 3};
	std::forward_list<int> fl{4};
	std::map<std::string, int> m{{"a", 1}};
	std::unordered_map<std::string, int> um{{"b", 2}};
	std::vector<int> v{5};
	Broken *b = reinterpret_cast<Broken *>(raw);
	std::memset(raw, 0, sizeof raw);
	poke(at(&b->str) + 8, 33);           // _M_string_length
	poke(at(&b->str_bad), 0x10);         // _M_dataplus._M_p
	poke(at(&b->str_bad) + 8, 5);
	poke(at(&b->lst) + 16, 2);           // _M_size; _M_next stays 0
	poke(at(&b->flst), 0x10);            // _M_head._M_next
	poke(at(&b->m) + 16, 0x10);          // _M_header._M_parent
	poke(at(&b->m) + 40, 11);            // _M_node_count; _M_left stays 0
	poke(at(&b->um) + 16, 0x20);         // _M_before_begin._M_nxt
	poke(at(&b->um) + 24, 3);            // _M_element_count
	poke(at(&b->vec), 0x20);             // _M_start
	poke(at(&b->vec) + 8, 0x30);         // _M_finish
	poke(at(&b->vec) + 16, 0x40);        // _M_end_of_storage
	// A reference to nothing (a dangling one): the referenced object's
	// memory cannot be read.
	const std::string &gone = *reinterpret_cast<std::string *>(0x10);
	int n = inspect(b, good, gone) - 1;
	std::printf("broken %d\n", n + (int)m.size() + (int)um.size() + (int)fl.empty() + (int)v.size() - 3);
	return 0;
}
