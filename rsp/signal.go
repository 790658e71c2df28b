package rsp

import "strconv"

// Signal is a signal number in GDB's numbering (gdb/signals.def), which is
// what every RSP server puts in stop replies and expects in vCont;C and
// QPassSignals. It is NOT the Linux numbering: GDB's SIGUSR1 is 30 (0x1e),
// SIGBUS is 10, SIGSEGV is 11. Use SignalFromLinux and Signal.Linux to convert.
type Signal int

// Common signals in GDB numbering.
const (
	Sig0       Signal = 0 // "no signal"; rr reports interrupts and boundaries as 0
	SIGHUP     Signal = 1
	SIGINT     Signal = 2
	SIGQUIT    Signal = 3
	SIGILL     Signal = 4
	SIGTRAP    Signal = 5
	SIGABRT    Signal = 6
	SIGFPE     Signal = 8
	SIGKILL    Signal = 9
	SIGBUS     Signal = 10
	SIGSEGV    Signal = 11
	SIGSYS     Signal = 12
	SIGPIPE    Signal = 13
	SIGALRM    Signal = 14
	SIGTERM    Signal = 15
	SIGSTOP    Signal = 17
	SIGCHLD    Signal = 20
	SIGUSR1    Signal = 30
	SIGUSR2    Signal = 31
	SigUnknown Signal = 143
)

// gdbNames holds the GDB names for the non-realtime signals; index = GDB number.
var gdbNames = [...]string{
	0: "SIG0", 1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP",
	6: "SIGABRT", 7: "SIGEMT", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGBUS", 11: "SIGSEGV",
	12: "SIGSYS", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGURG",
	17: "SIGSTOP", 18: "SIGTSTP", 19: "SIGCONT", 20: "SIGCHLD", 21: "SIGTTIN",
	22: "SIGTTOU", 23: "SIGIO", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM",
	27: "SIGPROF", 28: "SIGWINCH", 29: "SIGLOST", 30: "SIGUSR1", 31: "SIGUSR2",
	32: "SIGPWR", 33: "SIGPOLL", 34: "SIGWIND", 35: "SIGPHONE", 36: "SIGWAITING",
	37: "SIGLWP", 38: "SIGSTKFLT", 39: "SIGGRANT", 40: "SIGRETRACT", 41: "SIGMSG",
	42: "SIGSOUND", 43: "SIGSAK", 44: "SIGPRIO",
}

// String returns the signal's name, e.g. "SIGSEGV", "SIG34" for realtime
// signals, or "SIG?(n)" for numbers GDB does not define.
func (s Signal) String() string {
	switch {
	case s >= 0 && int(s) < len(gdbNames):
		return gdbNames[s]
	case s >= 45 && s <= 75:
		return "SIG" + strconv.Itoa(int(s)-12)
	case s == 76:
		return "SIGCANCEL"
	case s == 77:
		return "SIG32"
	case s >= 78 && s <= 141:
		return "SIG" + strconv.Itoa(int(s)-14)
	case s == 142:
		return "SIGINFO"
	case s == SigUnknown:
		return "SIG?"
	}
	return "SIG?(" + strconv.Itoa(int(s)) + ")"
}

// linuxToGDB maps Linux x86 signal numbers 1..31 to GDB numbers
// (rr's to_gdb_signum, GdbServerConnection.cc; gdbserver uses the same table).
var linuxToGDB = [32]Signal{
	0, 1, 2, 3, 4, 5, 6, 10, 8, 9, 30, 11, 31, 13, 14, 15,
	38, 20, 19, 17, 18, 21, 22, 16, 24, 25, 26, 27, 28, 23, 32, 12,
}

// SignalFromLinux converts a Linux signal number to GDB numbering.
func SignalFromLinux(sig int) Signal {
	switch {
	case sig >= 0 && sig < 32:
		return linuxToGDB[sig]
	case sig == 32:
		return 77
	case sig >= 33 && sig <= 63:
		return Signal(sig + 12)
	case sig >= 64 && sig <= 127:
		return Signal(sig + 14)
	}
	return SigUnknown
}

// Linux returns the Linux signal number for s, or -1 if Linux has none.
func (s Signal) Linux() int {
	for l, g := range linuxToGDB {
		if g == s {
			return l
		}
	}
	switch {
	case s == 77:
		return 32
	case s >= 45 && s <= 75:
		return int(s) - 12
	case s >= 78 && s <= 141:
		return int(s) - 14
	}
	return -1
}

// meanings are the explanations of the signals a crash or a stop names.
var meanings = map[Signal]string{
	SIGSEGV: "Segmentation fault: invalid memory access",
	SIGABRT: "Aborted (abort(), assert failure or detected heap corruption)",
	SIGBUS:  "Bus error: misaligned or unmapped file-backed access",
	SIGFPE:  "Arithmetic exception (integer division by zero, overflow)",
	SIGILL:  "Illegal instruction",
	SIGKILL: "Killed",
	SIGTERM: "Terminated",
	SIGINT:  "Interrupt",
	SIGPIPE: "Broken pipe",
	SIGTRAP: "Trace/breakpoint trap",
	SIGSYS:  "Bad system call",
	SIGALRM: "Alarm clock",
	SIGCHLD: "Child status changed",
	SIGUSR1: "User-defined signal 1",
	SIGUSR2: "User-defined signal 2",
}

// Meaning says in a few words what the signal means where it ends or
// stops a program ("Segmentation fault: invalid memory access"), or ""
// for signals without one.
func (s Signal) Meaning() string { return meanings[s] }
