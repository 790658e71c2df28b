package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// Group is the process group a debuggee leads: gdbserver puts the program
// it starts in a group of its own, and what the program forks stays in it
// unless it leaves. Ending the session ends the group, so a forked child
// the debugger never followed does not outlive it.
type Group struct {
	ID    int    // the group's id: its leader's pid
	start uint64 // the leader's start time, in clock ticks after boot
}

// GroupOf is the process group pid leads, where pid is a child of parent
// (the server that started it: the group is then surely the program's);
// ok is false where pid is another's child, is in another process's
// group (the program was not started in a group of its own), or /proc
// cannot tell.
func GroupOf(pid, parent int) (g Group, ok bool) {
	if pid <= 1 || parent <= 1 {
		return Group{}, false
	}
	st, ok := procStat(pid)
	if !ok || st.pgrp != pid || st.ppid != parent {
		return Group{}, false
	}
	return Group{ID: pid, start: st.start}, true
}

// Kill sends SIGKILL to every process left in the group: the leader while
// it runs, and what it forked. Where a process runs under the leader's
// pid with another start time, the pid was given out again, which the
// kernel does only once no process is left in the group: nothing is
// sent then.
func (g Group) Kill() {
	if g.ID <= 1 || g.ID == syscall.Getpgrp() {
		return // (never all processes, never rrmcp's own group)
	}
	if st, ok := procStat(g.ID); ok && st.start != g.start {
		return
	}
	syscall.Kill(-g.ID, syscall.SIGKILL) //nolint:errcheck // ESRCH: none left
}

// stat is what procStat reads of a process.
type stat struct {
	ppid, pgrp int
	start      uint64 // clock ticks after boot
}

// procStat reads a process's parent, group and start time from
// /proc/PID/stat (fields 4, 5 and 22, after the command name, which ends
// at the last ')').
func procStat(pid int) (stat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return stat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[4-3]))
	pgrp, err2 := strconv.Atoi(string(f[5-3]))
	start, err3 := strconv.ParseUint(string(f[22-3]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return stat{}, false
	}
	return stat{ppid: ppid, pgrp: pgrp, start: start}, true
}
