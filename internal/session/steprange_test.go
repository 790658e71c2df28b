package session

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestNextOverOtherFileRowMatchesGDB: at g++ -O2 a line's range may hold
// rows of other files that are no statements (an inlined call's code
// moved up, where the call's first range begins), and GDB's step range,
// find_pc_line's, does not end at those of files it looks at before the
// line's own (find_pc_sect_line's best_end, subfile by subfile): next
// goes over them. rrmcp ended the range at the next row of any file and
// stopped at the inlined call's start on another line, one stop ahead of
// GDB from then on (leveldb's DBImpl::Get in a real-code differential,
// reduced in testdata/nextrange). Each next's pc, file and line are
// compared with GDB 13's, to the end of the program.
func TestNextOverOtherFileRowMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	testenv.NeedTool(t, "g++")
	exe := filepath.Join(t.TempDir(), "nextrange")
	if out, err := exec.Command("g++", "-g", "-O2", "-o", exe, filepath.Join("testdata", "nextrange", "main.cc")).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	moves := []string{"next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next"}
	movesVsGDB(t, exe, "DB::Get", moves)
}
