/*
 * libstatics: the second compile unit of cpp_statics (see
 * cpp_statics.cpp), which defines reg::Registry's static members.
 * Root cause: none (part of cpp_statics)
 * Build (in testprogs/src):
 *             g++ -O0 -g -c -o ../build/libstatics.o libstatics.cpp
 */
#include "cpp_statics.h"

namespace reg {

std::atomic<unsigned long> Registry::created{6};
Counter Registry::totals{40, 2};
Registry Registry::fallback{"fallback"};
Registry *Registry::primary = &Registry::fallback;
long Decoy::created = -1;
Counter Decoy::totals{-1, -1};

int Registry::lookup(const std::string &key) const {
	totals.hits++;
	return (int)(key.size() + name.size()) + (int)(Decoy::created + Decoy::totals.hits) + 2;
}

int tally(Registry &r) {
	Registry::created++;
	return (int)Registry::created.load() + (int)r.name.size();
}

} // namespace reg
