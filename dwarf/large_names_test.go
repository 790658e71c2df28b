package dwarf

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ianlancetaylor/demangle"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestLargeCPlusPlusNames compares the qualified names of the
// non-template functions of the 100-unit STL program (namespaces, classes,
// operators, the anonymous namespace) with their demangled linkage names.
func TestLargeCPlusPlusNames(t *testing.T) {
	path := filepath.Join(testenv.Root(t), "bench", "large", "build", "stl", "stl")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not built (make -C bench/large): %v", path, err)
	}
	if os.Getenv("RRMCP_LARGE") == "" {
		t.Skip("slow (indexes a 126 MB binary, ~15 s): set RRMCP_LARGE=1")
	}
	img := openImage(t, path)
	total, bad := 0, 0
	seen := map[string]bool{}
	for _, f := range img.Functions() {
		if seen[f.LinkageName] {
			continue
		}
		seen[f.LinkageName] = true
		if f.LinkageName == "" {
			continue
		}
		want, err := demangle.ToString(f.LinkageName, demangle.NoParams, demangle.Verbose)
		if err != nil {
			continue
		}
		// DWARF and the mangled name legitimately differ in ABI tags,
		// literal suffixes and default template arguments that gcc
		// leaves out of DW_AT_name; GDB shows the DWARF spelling.
		want = abiTagRe.ReplaceAllString(want, "")
		want = litSuffixRe.ReplaceAllString(want, "$1")
		if strings.Contains(f.Name, "<") {
			// gcc leaves default template arguments out of DW_AT_name
			// ("std::vector<int>"), the mangled name has them: compare
			// template names only through TestCanonicalCxxName
			continue
		}
		total++
		if f.Name != want {
			bad++
			if bad <= 12 {
				t.Logf("%s\n ours %s\n c++filt %s", f.LinkageName, f.Name, want)
			}
		}
	}
	t.Logf("%d of %d names differ from the demangled linkage name", bad, total)
	if total < 1000 || bad*200 > total {
		t.Errorf("%d of %d names differ", bad, total)
	}
}

var (
	abiTagRe    = regexp.MustCompile(`\[abi:[a-z0-9]+\]`)
	litSuffixRe = regexp.MustCompile(`\b(\d+)(?:ul|ull|u|l|ll)\b`)
)
