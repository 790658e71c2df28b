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
	st, ok := ReadStat(pid)
	if !ok || st.PGrp != pid || st.PPid != parent {
		return Group{}, false
	}
	return Group{ID: pid, start: st.Start}, true
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
	if st, ok := ReadStat(g.ID); ok && st.Start != g.start {
		return
	}
	syscall.Kill(-g.ID, syscall.SIGKILL) //nolint:errcheck // ESRCH: none left
}

// Stat is what ReadStat reads of a process's /proc/PID/stat.
type Stat struct {
	PPid, PGrp int
	Start      uint64 // clock ticks after boot
	Threads    int
	// SigCatch are the signals below 32 the process has handlers for
	// (bit n-1: signal n).
	SigCatch uint64
}

// ReadStat reads a process's /proc/PID/stat (one small read): its
// parent, group, start time, number of threads and caught signals
// (fields 4, 5, 22, 20 and 34, after the command name, which ends at the
// last ')'); ok is false where the process is gone or the file unread.
func ReadStat(pid int) (st Stat, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Stat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 32 {
		return Stat{}, false
	}
	field := func(n int) uint64 {
		v, err := strconv.ParseUint(string(f[n-3]), 10, 64)
		if err != nil {
			ok = false
		}
		return v
	}
	ok = true
	st = Stat{PPid: int(field(4)), PGrp: int(field(5)), Start: field(22), Threads: int(field(20)), SigCatch: field(34)}
	return st, ok
}
