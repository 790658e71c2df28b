package dwarf

import (
	"slices"
	"testing"
)

// TestV5Paths: how a DWARF 5 line table's file entries become paths, as
// GCC, clang and glibc's build write them.
func TestV5Paths(t *testing.T) {
	for _, c := range []struct {
		name    string
		compDir string
		dirs    []string
		files   []v5File
		want    []string
	}{
		{"gcc, absolute compilation directory", "/src/proj", []string{"/src/proj", "/usr/include", "sub"},
			[]v5File{{"main.c", 0}, {"stdio.h", 1}, {"x.h", 2}},
			[]string{"/src/proj/main.c", "/usr/include/stdio.h", "/src/proj/sub/x.h"}},
		{"clang, absolute file name", "/build", []string{"/build"},
			[]v5File{{"/src/a.c", 0}},
			[]string{"/src/a.c"}},
		// glibc: DW_AT_comp_dir and directory 0 are both "./nptl"; GDB
		// says ./nptl/pthread_kill.c (was nptl/nptl/pthread_kill.c).
		{"relative compilation directory", "./nptl", []string{"./nptl", "../sysdeps/unix/sysv/linux"},
			[]v5File{{"pthread_kill.c", 0}, {"internal-signals.h", 1}},
			[]string{"nptl/pthread_kill.c", "sysdeps/unix/sysv/linux/internal-signals.h"}},
		{"pseudo-file and a directory index out of range", "/b", []string{"/b"},
			[]v5File{{"<built-in>", 0}, {"y.c", 7}},
			[]string{"<built-in>", "/b/y.c"}},
	} {
		if got := v5Paths(c.compDir, c.dirs, c.files); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
