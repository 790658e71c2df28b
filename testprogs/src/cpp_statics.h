// cpp_statics: see cpp_statics.cpp.
#include <atomic>
#include <string>

namespace reg {

struct Counter {
	long hits;
	long misses;
};

enum Flags { NONE = 0, READ = 1, WRITE = 2, EXEC = 4 };

class Registry {
public:
	explicit Registry(const char *n) : name(n) {}
	int lookup(const std::string &key) const;
	std::string name;
	Flags mode = READ;
	// Defined in libstatics.cpp: the main unit has the declarations only.
	static std::atomic<unsigned long> created;
	static Counter totals;
	static Registry *primary;
	static Registry fallback;
};

// Statics of the same names in another class: inside a Registry member
// function, "created" is Registry's.
struct Decoy {
	static long created;
	static Counter totals;
};

int tally(Registry &r);

} // namespace reg
