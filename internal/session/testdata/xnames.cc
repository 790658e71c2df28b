// Addresses GDB's x names by their ELF symbols' raw names (its
// asm-demangle is off): a C++ internal-linkage array (_ZL5kJson), a
// function-local static (_ZZ4pickiE2in), a global (g_count).
static const char kJson[] = "{\"a\":1}";
int g_count = 3;
int pick(int i)
{
	static int in[4] = {1, 2, 3, 4};
	return in[i] + kJson[i]; // LINE:use
}
int main() { return pick(1) + g_count; }
