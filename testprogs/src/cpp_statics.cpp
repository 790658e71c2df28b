/*
 * cpp_statics: C++ static members defined in another compile unit, names
 * that only a member or a namespace function has, flag enums holding
 * unknown bits, and smart pointers and atomics of library types, seen
 * from inspect(): what a debugger prints of each.
 *
 * - reg::Registry's static members (a std::atomic, a plain struct, a
 *   pointer, one of the class's own type) are declared in cpp_statics.h
 *   and defined in libstatics.cpp: this unit's DWARF has the
 *   declarations only;
 * - `lookup` is only a member function's name: from inspect() it names
 *   nothing (`tally` is a function of namespace reg, also not visible
 *   unqualified here; `reg::tally` is);
 * - `bad` holds bits no enumerator of reg::Flags has, `mixed` some;
 * - main's `nul` is a std::string ending in two NULs;
 * - reg::Decoy has statics named as Registry's: in Registry::lookup,
 *   `created` and `totals` are Registry's.
 * Root cause: none (exits 0)
 * Symptom:    prints "statics 44" and exits with status 0
 * Build (in testprogs/src):
 *             g++ -O0 -g -o ../build/cpp_statics cpp_statics.cpp libstatics.cpp
 *             (and build/cpp_statics-clang: clang++ -std=c++17 -O0 -g, the same files)
 */
#include <cstdio>
#include <memory>
#include <optional>

#include "cpp_statics.h"

__attribute__((noinline)) int inspect(reg::Registry &r, reg::Flags bad, reg::Flags mixed,
                                      const std::unique_ptr<std::string> &u, const std::shared_ptr<std::string> &s,
                                      const std::optional<std::string> &o, const std::atomic<std::string *> &a) {
	// Using the statics here puts their declarations in this unit's DWARF.
	return r.lookup("key") + (int)bad + (int)mixed - 0x63 + (int)u->size() + (int)s->size() + (int)o->size() +
	       (a.load() != nullptr) + (int)reg::Registry::totals.misses + (int)reg::Registry::created.load() +
	       (reg::Registry::primary == &reg::Registry::fallback);
}

int main() {
	reg::Registry r("main");
	auto u = std::make_unique<std::string>("owned");
	auto s = std::make_shared<std::string>("shared");
	std::optional<std::string> o = std::string("maybe");
	std::atomic<std::string *> a{u.get()};
	std::string nul("ab\0\0", 4); // GDB prints one trailing NUL less
	int n = (int)nul.size() - 4 + inspect(r, static_cast<reg::Flags>(0x50), static_cast<reg::Flags>(0x13), u, s, o, a);
	std::printf("statics %d\n", n + reg::tally(r));
	return 0;
}
