package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/internal/gdbmi"
	"github.com/rrmcp/rrmcp/internal/proc"
)

// gdbDriver drives `gdb --interpreter=mi3` attached to a gdbserver running
// the same target, the way an MI front end would.
type gdbDriver struct {
	g       *gdbmi.GDB
	srv     *proc.Process
	regNums map[string]string // register name -> GDB number
	setUp   bool
	pc      *packetCounter // profile runs: count GDB's packets
	// condEval is GDB's breakpoint condition-evaluation mode: "host"
	// (GDB evaluates, as rrmcp does) unless a case asks for "target".
	condEval string
	args     []string // the target's arguments
}

// newGDB starts gdb on exe (symbols are read here, as GDB always does).
func newGDB(ctx context.Context, exe string) (*gdbDriver, error) {
	g, err := gdbmi.Config{}.Launch(ctx, exe)
	if err != nil {
		return nil, err
	}
	return &gdbDriver{g: g}, nil
}

func (d *gdbDriver) name() string { return "gdb" }
func (d *gdbDriver) pid() int     { return d.g.Pid() }

// start launches exe under a fresh gdbserver and connects GDB to it.
func (d *gdbDriver) start(ctx context.Context, exe string) error {
	// GDB runs its gdbserver over a pipe (`target remote | gdbserver -`),
	// as rrmcp's live sessions run theirs over a socket pair: the same
	// kind of transport on both sides. Its warnings go nowhere, as
	// rrmcp's go to a file nobody reads. Profile runs count the packets
	// through a proxy, by address.
	target := "| gdbserver --once - " + strings.Join(append([]string{exe}, d.args...), " ") + " 2>/dev/null"
	if d.pc != nil {
		srv, addr, err := proc.StartGDBServer(ctx, exe, d.args, "", nil)
		if err != nil {
			return err
		}
		d.srv = srv
		if target, err = d.pc.through(addr); err != nil {
			return err
		}
	}
	if !d.setUp {
		// GDB's defaults, except what a front end sets to work
		// unattended; conditions are evaluated by GDB (host), as rrmcp
		// evaluates them itself, unless a case asks for target-side.
		ce := d.condEval
		if ce == "" {
			ce = "host"
		}
		for _, cmd := range []string{
			"-gdb-set confirm off", "-gdb-set pagination off", "-gdb-set sysroot /",
			"-gdb-set breakpoint condition-evaluation " + ce,
		} {
			if _, err := d.g.Run(ctx, cmd); err != nil {
				return err
			}
		}
		d.setUp = true
	}
	_, err := d.g.Run(ctx, "-target-select remote "+target)
	return err
}

func (d *gdbDriver) setBreak(ctx context.Context, loc, cond string) error {
	cmd := "-break-insert "
	if cond != "" {
		cmd += "-c " + gdbmi.Quote(cond) + " "
	}
	_, err := d.g.Run(ctx, cmd+loc)
	return err
}

func (d *gdbDriver) move(ctx context.Context, cmd string) (stopInfo, error) {
	rec, err := d.g.RunStop(ctx, cmd)
	if err != nil {
		return stopInfo{}, err
	}
	si := stopInfo{reason: rec.String("reason")}
	if f, ok := rec.Field("frame"); ok {
		fn, _ := f.Field("func")
		si.function = fn.Str
		line, _ := f.Field("line")
		si.line, _ = strconv.Atoi(line.Str)
	}
	return si, nil
}

func (d *gdbDriver) cont(ctx context.Context) (stopInfo, error)   { return d.move(ctx, "-exec-continue") }
func (d *gdbDriver) step(ctx context.Context) (stopInfo, error)   { return d.move(ctx, "-exec-step") }
func (d *gdbDriver) next(ctx context.Context) (stopInfo, error)   { return d.move(ctx, "-exec-next") }
func (d *gdbDriver) finish(ctx context.Context) (stopInfo, error) { return d.move(ctx, "-exec-finish") }

func (d *gdbDriver) backtrace(ctx context.Context, max int) (int, error) {
	rec, err := d.g.Run(ctx, fmt.Sprintf("-stack-list-frames 0 %d", max-1))
	if err != nil {
		return 0, err
	}
	st, _ := rec.Field("stack")
	return len(st.Results), nil
}

func (d *gdbDriver) locals(ctx context.Context) (int, error) {
	rec, err := d.g.Run(ctx, "-stack-list-variables --all-values")
	if err != nil {
		return 0, err
	}
	v, _ := rec.Field("variables")
	return len(v.Values), nil
}

func (d *gdbDriver) noop(ctx context.Context) error {
	_, err := d.g.Run(ctx, "-list-features")
	return err
}

func (d *gdbDriver) eval(ctx context.Context, expr string) (string, error) {
	rec, err := d.g.Run(ctx, "-data-evaluate-expression "+gdbmi.Quote(expr))
	if err != nil {
		return "", err
	}
	return rec.String("value"), nil
}

func (d *gdbDriver) readMem(ctx context.Context, addr string, n int) (int, error) {
	rec, err := d.g.Run(ctx, fmt.Sprintf("-data-read-memory-bytes %s %d", gdbmi.Quote(addr), n))
	if err != nil {
		return 0, err
	}
	mem, _ := rec.Field("memory")
	total := 0
	for _, blk := range mem.Values {
		c, _ := blk.Field("contents")
		total += len(c.Str) / 2
	}
	return total, nil
}

// regs reads the named registers (mapped to GDB's numbers once).
func (d *gdbDriver) regs(ctx context.Context, names []string) (int, error) {
	if d.regNums == nil {
		rec, err := d.g.Run(ctx, "-data-list-register-names")
		if err != nil {
			return 0, err
		}
		list, _ := rec.Field("register-names")
		d.regNums = map[string]string{}
		for i, v := range list.Values {
			if v.Str != "" {
				d.regNums[v.Str] = strconv.Itoa(i)
			}
		}
	}
	nums := make([]string, 0, len(names))
	for _, n := range names {
		num, ok := d.regNums[n]
		if !ok {
			return 0, fmt.Errorf("gdb has no register %q", n)
		}
		nums = append(nums, num)
	}
	rec, err := d.g.Run(ctx, "-data-list-register-values x "+strings.Join(nums, " "))
	if err != nil {
		return 0, err
	}
	v, _ := rec.Field("register-values")
	return len(v.Values), nil
}

// endSession kills the target (if it has not exited) and its gdbserver.
func (d *gdbDriver) endSession(ctx context.Context) error {
	_, err := d.g.Run(ctx, "-interpreter-exec console kill")
	var ge *gdbmi.Error
	if errors.As(err, &ge) && strings.Contains(ge.Msg, "not being run") {
		err = nil // it already exited
	}
	stopTarget(&d.srv, d.pc)
	return err
}

// stopTarget stops the gdbserver *srv of a session, if any, clearing it,
// and the packet counting of pc (nil when not counting).
func stopTarget(srv **proc.Process, pc *packetCounter) {
	if *srv != nil {
		(*srv).Stop(0)
		*srv = nil
	}
	if pc != nil {
		pc.stop()
	}
}

func (d *gdbDriver) packets() int64 { return d.pc.packets() }

func (d *gdbDriver) serverTime() float64 { return -1 }

func (d *gdbDriver) close() error {
	if d.srv != nil {
		d.srv.Stop(0)
	}
	err := d.g.Close()
	if d.pc != nil {
		d.pc.stop()
	}
	return err
}
