package gdbdiff

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
)

// frameObs is one backtrace frame as both sides report it.
type frameObs struct {
	Func string
	File string // base name; "" without line info
	Line int
}

func (f frameObs) String() string {
	if f.File == "" {
		return f.Func
	}
	return fmt.Sprintf("%s %s:%d", f.Func, f.File, f.Line)
}

// observation is what one side saw at one stop.
type observation struct {
	// Err says why the stop was not observed (not reached, breakpoint
	// not set, ...); the other fields are then empty.
	Err    string
	Addrs  []uint64 // breakpoint addresses (break stops)
	Frames []frameObs
	// Vars maps the names of frame 0's locals and arguments to their
	// values; a second variable of the same name is "name#2".
	Vars map[string]string
	// Exprs holds, per expression of the stop, its value or "error: …".
	Exprs []string
	// Args holds, per frame, its arguments as "name=value, …" (GDB's
	// -stack-list-arguments): it checks the registers the unwinder
	// recovers for the callers.
	Args []string
	// Callers holds, for frames 1 .. maxCallerFrames, their variables
	// (arguments, NAME@entry and locals), sorted: it checks the values the
	// unwinder recovers for callers' locals.
	Callers []map[string]string
}

// maxCallerFrames bounds the caller frames whose variables are compared.
const maxCallerFrames = 6

// event is why a resume returned.
type event struct {
	hits   []int  // indexes of armed stops whose breakpoint/watchpoint was hit
	signal string // signal the target stopped with ("SIGSEGV"), if any
	exited string // how the program ended, if it did
}

// debugger is one side of the comparison: GDB, or our rsp+dwarf stack.
type debugger interface {
	// start launches the program and runs it to main.
	start(ctx context.Context) error
	// arm inserts the breakpoint or watchpoint of specs[i]. For a
	// breakpoint it returns the runtime addresses it resolved to.
	arm(ctx context.Context, i int, sp *stopSpec) ([]uint64, error)
	// disarm removes what arm inserted.
	disarm(ctx context.Context, i int) error
	// resume continues until a hit of an armed stop, a signal stop or exit.
	resume(ctx context.Context) (event, error)
	// observe reports the backtrace, frame 0's variables and the
	// expressions at the current stop.
	observe(ctx context.Context, sp *stopSpec) *observation
	close()
	// abort kills every process the side started; it may be called from
	// another goroutine while the side is stuck.
	abort()
}

// reaper remembers the processes a side started, for abort.
type reaper struct {
	mu    sync.Mutex
	procs []*proc.Process
	pids  []int
}

func (r *reaper) add(p *proc.Process) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.procs = append(r.procs, p)
}

// addPID records a debuggee: gdbserver's child, which it does not take
// down when it is killed itself.
func (r *reaper) addPID(pid int) {
	if pid <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pids = append(r.pids, pid)
}

func (r *reaper) abort() {
	r.mu.Lock()
	procs, pids := r.procs, r.pids
	r.mu.Unlock()
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	for _, p := range procs {
		p.Kill()
	}
}

// tableErr starts the Err of a stop that stops.txt got wrong.
const tableErr = "stops.txt: "

// maxResumes bounds the resumes of one run (hit counts are small).
const maxResumes = 200

// runScript drives d through the stops of one program and returns an
// observation for every stop, keyed by id. Both sides run this same
// script, so they stop at the same places.
func runScript(ctx context.Context, d debugger, specs []*stopSpec) map[string]*observation {
	obs := map[string]*observation{}
	fail := func(why string) {
		for _, sp := range specs {
			if obs[sp.ID] == nil {
				obs[sp.ID] = &observation{Err: why}
			}
		}
	}
	if err := d.start(ctx); err != nil {
		fail("start: " + err.Error())
		return obs
	}
	defer closeBounded(d)
	addrs := map[int][]uint64{}
	armed := map[int]bool{}
	for i, sp := range specs {
		if sp.Kind == stopBreak && sp.Where == "main" && sp.Hit == 1 {
			// The run to main is this stop.
			o := d.observe(ctx, sp)
			if a, err := d.arm(ctx, i, sp); err == nil {
				o.Addrs = a
				d.disarm(ctx, i)
			}
			obs[sp.ID] = o
			continue
		}
		if sp.Kind == stopSignal {
			continue
		}
		a, err := d.arm(ctx, i, sp)
		if err != nil {
			obs[sp.ID] = &observation{Err: "arm: " + err.Error()}
			continue
		}
		addrs[i], armed[i] = a, true
	}
	// Two stops at one address would count each other's hits on one side
	// and not on the other (GDB reports one breakpoint per stop).
	owner := map[uint64]int{}
	for i := range specs {
		for _, a := range addrs[i] {
			j, dup := owner[a]
			if !dup {
				owner[a] = i
				continue
			}
			for _, k := range []int{i, j} {
				if armed[k] {
					d.disarm(ctx, k)
					armed[k] = false
				}
			}
			msg := fmt.Sprintf("%s%s and %s share the address %#x; pick other locations", tableErr, specs[j].ID, specs[i].ID, a)
			obs[specs[i].ID] = &observation{Err: msg}
			obs[specs[j].ID] = &observation{Err: msg}
		}
	}
	pending := func() bool {
		for _, sp := range specs {
			if obs[sp.ID] == nil {
				return true
			}
		}
		return false
	}
	hits := map[int]int{}
	for n := 0; pending(); n++ {
		if n == maxResumes {
			fail(fmt.Sprintf("not reached in %d resumes", maxResumes))
			break
		}
		ev, err := d.resume(ctx)
		if err != nil {
			fail("resume: " + err.Error())
			break
		}
		if ev.exited != "" {
			fail("not reached: the program " + ev.exited)
			break
		}
		if ev.signal != "" {
			for _, sp := range specs {
				if sp.Kind == stopSignal && sp.Where == ev.signal && obs[sp.ID] == nil {
					obs[sp.ID] = d.observe(ctx, sp)
				}
			}
		}
		for _, i := range ev.hits {
			if !armed[i] {
				continue
			}
			hits[i]++
			if hits[i] < specs[i].Hit {
				continue
			}
			o := d.observe(ctx, specs[i])
			o.Addrs = addrs[i]
			obs[specs[i].ID] = o
			armed[i] = false
			if err := d.disarm(ctx, i); err != nil {
				fail("disarm: " + err.Error())
				return obs
			}
		}
	}
	return obs
}

// closeBounded closes d but gives up waiting after a while, so that a
// debuggee that survives its server cannot hang the test; the leak is
// reported by the caller's process checks, not hidden.
func closeBounded(d debugger) {
	done := make(chan struct{})
	go func() {
		d.close()
		close(done)
	}()
	t := time.NewTimer(20 * time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		closeHangs.Add(1)
	}
}

// closeHangs counts closes that did not finish; the test fails on any.
var closeHangs atomic.Int32

// field is one compared item of a stop.
type field struct {
	Name      string // "reached", "addrs", "bt", "var:NAME", "expr:EXPR"
	Ours, GDB string
}

// compare lists the fields of one stop on both sides, in a stable order.
// srcs names the programs' own source files (base names): only caller
// frames in them have their variables compared, because frames in libc
// hold per-process random data (pointer-guard mangled jmp_bufs, stack
// canaries) that differ between any two runs.
func compare(sp *stopSpec, ours, gdb *observation, srcs map[string]bool) []field {
	var out []field
	if ours.Err != "" || gdb.Err != "" {
		// Compare only whether both reached the stop.
		return append(out, field{"reached", orOK(ours.Err), orOK(gdb.Err)})
	}
	if sp.Kind == stopBreak {
		out = append(out, field{"addrs", hexList(ours.Addrs), hexList(gdb.Addrs)})
	}
	out = append(out, field{"bt", framesText(ours.Frames), framesText(gdb.Frames)})
	out = append(out, field{"args", argsText(ours.Args), argsText(gdb.Args)})
	out = append(out, field{"callers", callersText(ours, srcs), callersText(gdb, srcs)})
	if _, e1 := ours.Vars["(error)"]; e1 || gdb.Vars["(error)"] != "" {
		// One side could not list variables at all: one field, not one
		// per variable of the other side.
		return append(append(out, field{"vars", varsText(ours.Vars), varsText(gdb.Vars)}), exprFields(sp, ours, gdb)...)
	}
	var names []string
	for n := range ours.Vars {
		names = append(names, n)
	}
	for n := range gdb.Vars {
		if _, ok := ours.Vars[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		o, ok1 := ours.Vars[n]
		g, ok2 := gdb.Vars[n]
		if !ok1 {
			o = "(missing)"
		}
		if !ok2 {
			g = "(missing)"
		}
		out = append(out, field{"var:" + n, normValue(o), normValue(g)})
	}
	return append(out, exprFields(sp, ours, gdb)...)
}

func exprFields(sp *stopSpec, ours, gdb *observation) []field {
	var out []field
	for i, e := range sp.Exprs {
		o, g := "(missing)", "(missing)"
		if i < len(ours.Exprs) {
			o = ours.Exprs[i]
		}
		if i < len(gdb.Exprs) {
			g = gdb.Exprs[i]
		}
		// Both failing agrees, whatever the wording of the error.
		if strings.HasPrefix(o, "error: ") && strings.HasPrefix(g, "error: ") {
			o, g = "error", "error"
		}
		out = append(out, field{"expr:" + e, normValue(o), normValue(g)})
	}
	return out
}

func argsText(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "#%d (%s)", i, normValue(a))
	}
	return b.String()
}

func callersText(o *observation, srcs map[string]bool) string {
	var parts []string
	for i, m := range o.Callers {
		if i+1 >= len(o.Frames) || !srcs[o.Frames[i+1].File] {
			continue
		}
		parts = append(parts, fmt.Sprintf("#%d {%s}", i+1, varsText(m)))
	}
	return strings.Join(parts, " | ")
}

func varsText(m map[string]string) string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(n + " = " + normValue(m[n]))
	}
	return b.String()
}

func orOK(s string) string {
	if s == "" {
		return "reached"
	}
	return s
}

func hexList(a []uint64) string {
	a = slices.Clone(a)
	slices.Sort(a)
	a = slices.Compact(a)
	var b strings.Builder
	for i, x := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%#x", x)
	}
	return b.String()
}

func framesText(fs []frameObs) string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "#%d %s", i, f)
	}
	return b.String()
}

// normValue collapses runs of white space (GDB wraps nothing with width 0,
// but pretty printers differ in spacing around "=" in maps only by
// presentation).
func normValue(s string) string { return strings.Join(strings.Fields(s), " ") }
