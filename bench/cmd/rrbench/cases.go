package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// stopInfo is what both sides report about a stop, to check they agree.
type stopInfo struct {
	reason   string
	function string
	line     int
}

func (s stopInfo) String() string { return fmt.Sprintf("%s in %s:%d", s.reason, s.function, s.line) }

// driver is one debugger front end: rrmcp over MCP, or GDB over MI.
type driver interface {
	name() string
	pid() int
	start(ctx context.Context, exe string) error
	setBreak(ctx context.Context, loc, cond string) error
	cont(ctx context.Context) (stopInfo, error)
	step(ctx context.Context) (stopInfo, error)
	next(ctx context.Context) (stopInfo, error)
	finish(ctx context.Context) (stopInfo, error)
	backtrace(ctx context.Context, max int) (int, error)
	locals(ctx context.Context) (int, error)
	eval(ctx context.Context, expr string) (string, error)
	readMem(ctx context.Context, addr string, n int) (int, error)
	regs(ctx context.Context, names []string) (int, error)
	// noop is the front end's cheapest request, one that touches neither
	// the session nor the target: rrmcp's JSON-RPC ping, GDB's
	// -list-features.
	noop(ctx context.Context) error
	endSession(ctx context.Context) error
	close() error
	packets() int64 // RSP packets sent so far (profile runs), or -1
	// serverTime is the time rrmcp reported spending inside the server on
	// the calls so far (ms, from its _meta with RRMCP_DEBUG_TIMING); -1
	// where there is none (GDB).
	serverTime() float64
}

// maker starts a front end that will debug exe (GDB reads its symbols at
// start; rrmcp when the session starts).
type maker func(ctx context.Context, exe string) (driver, error)

// measurement is one side's result for one case.
type measurement struct {
	durs []time.Duration
	rss  []float64 // MiB, cold-start cases only
	pkts []float64 // RSP packets per timed operation (profile runs)
	cpu  []float64 // ms of CPU the front-end process used per timed operation
	srv  []float64 // ms rrmcp spent inside its tool handlers per timed operation
	// again: an inspection made a second time at the same stop, right
	// after the timed one (inspectAtHit): what it costs where the stop's
	// data is read already
	again []time.Duration
	check string // what the side returned, to compare the two
}

// timed runs op and records its duration and, when counting, its packets.
// CPU samples taken meanwhile carry the label rrbench=timed, so a profile
// can be narrowed to the timed operations (-tagfocus=rrbench=timed).
func (m *measurement) timed(d driver, keep bool, op func() error) error {
	p0 := d.packets()
	c0 := cpuMs(d.pid())
	s0 := d.serverTime()
	var err error
	t0 := time.Now()
	pprof.Do(context.Background(), pprof.Labels("rrbench", "timed"), func(context.Context) { err = op() })
	dur := time.Since(t0)
	if err != nil || !keep {
		return err
	}
	m.durs = append(m.durs, dur)
	if c0 >= 0 {
		if c1 := cpuMs(d.pid()); c1 >= c0 {
			m.cpu = append(m.cpu, c1-c0)
		}
	}
	if s0 >= 0 {
		m.srv = append(m.srv, d.serverTime()-s0)
	}
	if p0 >= 0 {
		m.pkts = append(m.pkts, float64(d.packets()-p0))
	}
	return nil
}

// benchCase is one row (or two, with RSS) of the results.
type benchCase struct {
	name string
	desc string
	unit string // "ms" per operation, or per run for whole-run cases
	hits int    // > 0: throughput case, hits per run
	rss  string // name of the peak-RSS row this case also yields
	reps int
	exe  func(e *env) string
	args []string // the target's arguments
	// curve names the cost curve this case is a point of ("" = none),
	// at x on its axis.
	curve string
	x     int
	run   func(ctx context.Context, exe string, mk maker, reps int) (measurement, error)
	large bool // uses a large binary
	// gdbCondEval sets GDB's breakpoint condition-evaluation mode for
	// this case ("" = host).
	gdbCondEval string
	// agent starts rrmcp's live sessions with gdbserver's in-process
	// agent (rr_live_start in_process_agent), for fast tracepoints.
	agent bool
	// oneCall marks a case timed as one rrmcp call of many seconds (the
	// calls query): a client library's share of it is under a
	// millisecond (the per-operation rows measure that share), so only
	// the lean client runs it and the mcp-go column shows —.
	oneCall bool
	// reference marks a row that measures a floor under other rows, not
	// an operation: it has no goal.
	reference bool
}

// gpRegs are the registers "read all registers" reads on both sides: the
// general-purpose set rrmcp's rr_registers returns by default.
var gpRegs = []string{"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip", "eflags",
	"cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base"}

const warmup = 3

func cases() []benchCase {
	counter := func(e *env) string { return e.counter }
	return []benchCase{
		{name: "continue_to_breakpoint", unit: "ms", reps: 40, exe: counter,
			desc: "rr_continue / -exec-continue to a breakpoint in hit() (hit again each time)",
			run:  atHit(motion(driver.cont, false), false)},
		{name: "step", unit: "ms", reps: 40, exe: counter,
			desc: "rr_step / -exec-step: one source line in hit()",
			run:  atHit(motion(driver.step, true), true)},
		{name: "next", unit: "ms", reps: 40, exe: counter,
			desc: "rr_next / -exec-next: one source line in hit()",
			run:  atHit(motion(driver.next, true), true)},
		{name: "finish", unit: "ms", reps: 40, exe: counter,
			desc: "rr_finish / -exec-finish: from hit() back to main()",
			run:  atHit(motion(driver.finish, false), true)},
		{name: "backtrace_20_frames", unit: "ms", reps: 12, exe: counter,
			desc: "rr_backtrace / -stack-list-frames at bottom() under chain(20): the first backtrace after the stop (fresh target each time, same front-end process). GDB reads libc's symbols at the library-load event during the untimed continue; rrmcp lazily, so this can include loading them",
			run:  backtraceAtBottom(false)},
		{name: "continue_and_backtrace", unit: "ms", reps: 12, exe: counter,
			desc: "the continue to bottom() and the backtrace together (fresh target each time): what an agent waits for, whichever side loads library symbols when",
			run:  backtraceAtBottom(true)},
		{name: "locals", unit: "ms", reps: 40, exe: counter,
			desc: "rr_locals / -stack-list-variables --all-values in hit()",
			run: inspectAtHit(func(ctx context.Context, d driver) (string, error) {
				n, err := d.locals(ctx)
				return fmt.Sprintf("%d values", n), err
			})},
		{name: "evaluate_member_chain", unit: "ms", reps: 40, exe: counter,
			desc: "rr_evaluate / -data-evaluate-expression of list->next->name (struct node chain) in hit()",
			run: inspectAtHit(func(ctx context.Context, d driver) (string, error) {
				return d.eval(ctx, "list->next->name")
			})},
		{name: "read_memory_64", unit: "ms", reps: 40, exe: counter,
			desc: "rr_read_memory / -data-read-memory-bytes of 64 bytes at &bytes in hit()",
			run: inspectAtHit(func(ctx context.Context, d driver) (string, error) {
				n, err := d.readMem(ctx, "&bytes", 64)
				return fmt.Sprintf("%d bytes", n), err
			})},
		{name: "registers", unit: "ms", reps: 40, exe: counter,
			desc: "rr_registers / -data-list-register-values x: the 26 general-purpose registers in hit()",
			run: inspectAtHit(func(ctx context.Context, d driver) (string, error) {
				n, err := d.regs(ctx, gpRegs)
				return fmt.Sprintf("%d registers", n), err
			})},
		{name: "ping_after_stop", unit: "ms", reps: 40, exe: counter, reference: true,
			desc: "a JSON-RPC ping / -list-features right after the continue to hit(): no session, no target, only the round trip, at the moment every inspection row above is timed (threads asleep, the stop's own reads in flight); the floor under those rows, not a goal of its own",
			run: inspectAtHit(func(ctx context.Context, d driver) (string, error) {
				return "pong", d.noop(ctx)
			})},
		{name: "breakpoint_hits_10000", unit: "ms", hits: 10000, reps: 2, exe: counter,
			desc: "one continue over 10,000 hits of a conditional breakpoint in hit(), condition ratio * i < 0 (never true; ratio is a double, which neither side compiles to agent bytecode), so the front end evaluates it at every hit: one trap and round trips per hit; GDB with condition-evaluation host, stepping over its breakpoint after each false hit; rrmcp moves the breakpoint to a debug register at its first hit where hardware breakpoints fire (the x86 resume flag then passes it without a step over: one resume per false hit)",
			run:  hitThroughput("ratio * i < 0")},
		{name: "breakpoint_hits_10000_target_cond", unit: "ms", hits: 10000, reps: 2, exe: counter,
			gdbCondEval: "target",
			desc:        "the same with condition i + 1 < 0 && list->next->value == 2, which both sides hand to gdbserver as agent bytecode (rrmcp compiles it after the first hit; GDB in its default mode, condition-evaluation auto = target), so the hits are filtered in the server",
			run:         hitThroughput("i + 1 < 0 && list->next->value == 2")},
		{name: "cold_start_sqlite3", unit: "ms", rss: "peak_rss_sqlite3", reps: 3, large: true,
			exe:  func(e *env) string { return e.sqlite },
			desc: "spawn the front end, start sqlite3 (-O2 -g, 5 MB) under gdbserver, break at bench_stop, continue to it",
			run:  coldStart},
		{name: "cold_start_stl", unit: "ms", rss: "peak_rss_stl", reps: 3, large: true,
			exe:  func(e *env) string { return e.stl },
			desc: "the same on the generated STL-heavy C++ program (100 units, 126 MB, 41 MB .debug_info)",
			run:  coldStart},
		{name: "cold_start_dwarf", unit: "ms", rss: "peak_rss_dwarf", reps: 3, large: true,
			exe:  func(e *env) string { return e.dwarf },
			desc: "the same on the generated C program with about 500 MB of DWARF (180 units of structs, 520 MB binary; bench/large)",
			run:  coldStart},
	}
}

// atHit runs op reps times in one session, each time at a fresh stop in
// hit(): the untimed continue before it makes every op the first one
// after a stop (caches cold). With perStop false, op itself is the move.
func atHit(op func(ctx context.Context, d driver) (string, error), perStop bool) func(context.Context, string, maker, int) (measurement, error) {
	return atFunc("hit", nil, op, perStop)
}

// inspectAtHit is atHit of an inspection (perStop), which it also makes
// a second time at each stop, right after the timed one: that time
// (measurement.again) is the call's own where what the stop brought is
// read already, which tells a first look's wait for it from the rest.
func inspectAtHit(op func(ctx context.Context, d driver) (string, error)) func(context.Context, string, maker, int) (measurement, error) {
	return atFuncAgain("hit", nil, op, true, true)
}

// motion is an atHit operation that makes one motion and answers the
// function it stops in, with the line where withLine.
func motion(move func(driver, context.Context) (stopInfo, error), withLine bool) func(context.Context, driver) (string, error) {
	return func(ctx context.Context, d driver) (string, error) {
		st, err := move(d, ctx)
		if withLine {
			return st.function + ":" + strconv.Itoa(st.line), err
		}
		return st.function, err
	}
}

// atFunc is atHit at a breakpoint in fn, after setup (if any) ran at the
// start of the session.
func atFunc(fn string, setup func(ctx context.Context, d driver) error, op func(ctx context.Context, d driver) (string, error), perStop bool) func(context.Context, string, maker, int) (measurement, error) {
	return atFuncAgain(fn, setup, op, perStop, false)
}

// atFuncAgain is atFunc that, with again, makes op a second time after
// each timed one, timing it into measurement.again.
func atFuncAgain(fn string, setup func(ctx context.Context, d driver) error, op func(ctx context.Context, d driver) (string, error), perStop, again bool) func(context.Context, string, maker, int) (measurement, error) {
	return func(ctx context.Context, exe string, mk maker, reps int) (measurement, error) {
		return withDriver(ctx, exe, mk, func(d driver) (measurement, error) {
			var m measurement
			if err := d.start(ctx, exe); err != nil {
				return m, err
			}
			defer d.endSession(ctx)
			if setup != nil {
				if err := setup(ctx, d); err != nil {
					return m, err
				}
			}
			if err := d.setBreak(ctx, fn, ""); err != nil {
				return m, err
			}
			if !perStop {
				if _, err := d.cont(ctx); err != nil {
					return m, err
				}
			}
			for i := 0; i < warmup+reps; i++ {
				if perStop {
					st, err := d.cont(ctx)
					if err != nil {
						return m, err
					}
					if st.function != fn {
						return m, fmt.Errorf("continue stopped in %q, not %s", st.function, fn)
					}
				}
				err := m.timed(d, i >= warmup, func() (err error) {
					m.check, err = op(ctx, d)
					return err
				})
				if err != nil {
					return m, err
				}
				if again {
					t0 := time.Now()
					if _, err := op(ctx, d); err != nil {
						return m, err
					}
					if i >= warmup {
						m.again = append(m.again, time.Since(t0))
					}
				}
			}
			return m, nil
		})
	}
}

// backtraceAtBottom runs to bottom() under chain(20) in a fresh target per
// repetition and times the backtrace there, and with withCont the continue
// that reaches it as well.
func backtraceAtBottom(withCont bool) func(context.Context, string, maker, int) (measurement, error) {
	return func(ctx context.Context, exe string, mk maker, reps int) (measurement, error) {
		return withDriver(ctx, exe, mk, func(d driver) (measurement, error) {
			var m measurement
			for i := 0; i < 1+reps; i++ { // one warm-up session
				if err := d.start(ctx, exe); err != nil {
					return m, err
				}
				if err := d.setBreak(ctx, "bottom", ""); err != nil {
					return m, err
				}
				if !withCont {
					if _, err := d.cont(ctx); err != nil {
						return m, err
					}
				}
				var n int
				err := m.timed(d, i > 0, func() error {
					if withCont {
						if _, err := d.cont(ctx); err != nil {
							return err
						}
					}
					var err error
					n, err = d.backtrace(ctx, 64)
					return err
				})
				if err != nil {
					return m, err
				}
				m.check = fmt.Sprintf("%d frames", n)
				if err := d.endSession(ctx); err != nil {
					return m, err
				}
			}
			return m, nil
		})
	}
}

// hitThroughput times one continue over all 10,000 calls of hit() with a
// breakpoint whose condition is never true.
func hitThroughput(cond string) func(context.Context, string, maker, int) (measurement, error) {
	return func(ctx context.Context, exe string, mk maker, reps int) (measurement, error) {
		return hitRuns(ctx, exe, mk, reps, cond)
	}
}

func hitRuns(ctx context.Context, exe string, mk maker, reps int, cond string) (measurement, error) {
	return withDriver(ctx, exe, mk, func(d driver) (measurement, error) {
		var m measurement
		for i := 0; i < reps; i++ {
			if err := d.start(ctx, exe); err != nil {
				return m, err
			}
			if err := d.setBreak(ctx, "hit", cond); err != nil {
				return m, err
			}
			var st stopInfo
			err := m.timed(d, true, func() (err error) {
				st, err = d.cont(ctx)
				return err
			})
			if err != nil {
				return m, err
			}
			m.check = st.reason
			if err := d.endSession(ctx); err != nil {
				return m, err
			}
		}
		return m, nil
	})
}

func coldStart(ctx context.Context, exe string, mk maker, reps int) (measurement, error) {
	var m measurement
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		d, err := mk(ctx, exe)
		if err != nil {
			return m, err
		}
		var st stopInfo
		pprof.Do(context.Background(), pprof.Labels("rrbench", "timed"), func(context.Context) {
			st, err = func() (stopInfo, error) {
				if err := d.start(ctx, exe); err != nil {
					return stopInfo{}, err
				}
				if err := d.setBreak(ctx, "bench_stop", ""); err != nil {
					return stopInfo{}, err
				}
				return d.cont(ctx)
			}()
		})
		dur := time.Since(t0)
		rss := peakRSS(d.pid())
		if pk := d.packets(); pk >= 0 && err == nil {
			m.pkts = append(m.pkts, float64(pk))
		}
		d.endSession(ctx)
		d.close()
		if err != nil {
			return m, err
		}
		if st.function != "bench_stop" {
			return m, fmt.Errorf("stopped in %q, not bench_stop", st.function)
		}
		m.durs = append(m.durs, dur)
		m.rss = append(m.rss, rss)
		m.check = st.function
	}
	return m, nil
}

// peakRSS returns VmHWM of pid in MiB (0 if unknown).
func peakRSS(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024
			}
		}
	}
	return 0
}

// cpuMs returns the CPU time all threads of pid have used so far, in ms,
// from /proc/PID/task/*/sched (se.sum_exec_runtime, ns resolution); -1 if
// unavailable.
func cpuMs(pid int) float64 {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/sched", pid))
	if len(files) == 0 {
		return -1
	}
	total := 0.0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread exited
		}
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "se.sum_exec_runtime"); ok {
				_, v, _ := strings.Cut(rest, ":")
				x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err == nil {
					total += x
				}
				break
			}
		}
	}
	return total
}

// withDriver starts a front end for exe with mk, runs f with it and closes
// it.
func withDriver(ctx context.Context, exe string, mk maker, f func(d driver) (measurement, error)) (measurement, error) {
	d, err := mk(ctx, exe)
	if err != nil {
		return measurement{}, err
	}
	defer d.close()
	return f(d)
}
