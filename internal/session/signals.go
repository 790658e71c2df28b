package session

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/internal/errkind"
	"github.com/rrmcp/rrmcp/rsp"
)

// SignalHandling is how a session treats one signal, as GDB's `handle`:
// Stop reports it as a stop, Print mentions it, Pass delivers it to the
// program when it goes on.
type SignalHandling struct {
	Signal string `json:"signal"`
	Stop   bool   `json:"stop"`
	Print  bool   `json:"print"`
	Pass   bool   `json:"pass"`
}

// quietSignals are GDB's "nostop noprint pass" defaults on Linux (`info
// signals` of GDB 13): signals programs use for their own purposes (Go's
// preemption uses SIGURG) that a debugger should let through silently.
var quietSignals = []rsp.Signal{
	14, // SIGALRM
	16, // SIGURG
	20, // SIGCHLD
	23, // SIGIO
	26, // SIGVTALRM
	27, // SIGPROF
	28, // SIGWINCH
	33, // SIGPOLL
	36, // SIGWAITING
	37, // SIGLWP
	44, // SIGPRIO
}

// defaultHandling is GDB's default for sig: quiet signals pass silently;
// SIGINT and SIGTRAP stop and are not passed; everything else stops,
// prints and is passed.
func defaultHandling(sig rsp.Signal) SignalHandling {
	h := SignalHandling{Signal: sig.String(), Stop: true, Print: true, Pass: true}
	switch {
	case slices.Contains(quietSignals, sig):
		h.Stop, h.Print = false, false
	case sig == rsp.SIGINT || sig == rsp.SIGTRAP:
		h.Pass = false
	}
	return h
}

func (s *Session) handling(sig rsp.Signal) SignalHandling {
	if h, ok := s.sigs[sig]; ok {
		return h
	}
	return defaultHandling(sig)
}

// passList is the QPassSignals set: signals that neither stop nor print
// and are passed go straight to the program inside the server.
func (s *Session) passList() []rsp.Signal {
	var out []rsp.Signal
	for sig := rsp.Signal(1); sig < 150; sig++ {
		if h := s.handling(sig); !h.Stop && !h.Print && h.Pass && sig != rsp.SIGTRAP && sig != rsp.SIGINT && sig != rsp.SIGKILL && sig != rsp.SIGSTOP {
			out = append(out, sig)
		}
	}
	return out
}

// applySignals sends the pass list where the server supports
// QPassSignals; without it, stops for such signals are resumed by
// signalGoesOn.
func (s *Session) applySignals(ctx context.Context) error {
	s.passed = passedSignals{} // the handling changed: passedMask again
	if !s.c.Supports("QPassSignals") {
		return nil
	}
	return s.c.PassSignals(ctx, s.passList()...)
}

// signalGoesOn applies the policy to a signal stop: a signal that should
// not stop makes the move go on (passing it or not); one that stops but is
// not passed is not delivered by the next continue.
func (s *Session) signalGoesOn(out *Stop, st rsp.Stop) bool {
	if out.Reason != "signal" || st.Kind != rsp.StopSignal {
		return false
	}
	h := s.handling(st.Signal)
	if !h.Pass {
		s.pending = 0
		if h.Stop {
			out.Message = strings.TrimSpace(strings.Replace(out.Message, "Continuing delivers "+out.Signal+" to the program.", "", 1) +
				" Continuing does not deliver " + out.Signal + " (rr_signal_handle pass=true changes that).")
		}
	}
	if !h.Stop && h.Print {
		s.sigSeen = append(s.sigSeen, out.Signal)
	}
	return !h.Stop
}

// noteSignalsSeen tells, in the stop that ends a move, which signals that
// print but do not stop the program received on the way.
func (s *Session) noteSignalsSeen(out *Stop) {
	if len(s.sigSeen) == 0 {
		return
	}
	out.Message = strings.TrimSpace(out.Message + " On the way the program received " + strings.Join(s.sigSeen, ", ") + " (passed without stopping: rr_signal_handle).")
	s.sigSeen = nil
}

// ParseSignal reads a signal name (SIGURG, URG) or a Linux number.
func ParseSignal(name string) (rsp.Signal, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if v, err := strconv.Atoi(n); err == nil && v > 0 && v < 65 {
		return rsp.SignalFromLinux(v), nil
	}
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	for sig := rsp.Signal(1); sig < 150; sig++ {
		if sig.String() == n {
			return sig, nil
		}
	}
	return 0, argErrorf("signal", "%q is not a signal name (e.g. SIGURG, SIGALRM) or Linux signal number", errkind.Shorten(name, 40))
}

// HandleSignal changes (nil fields keep theirs) and returns how the session
// treats a signal, like GDB's `handle SIG [no]stop [no]print [no]pass`:
// stop implies print, noprint implies nostop. Passed silent signals go to
// the server's QPassSignals list.
func (s *Session) HandleSignal(ctx context.Context, name string, stop, print, pass *bool) (SignalHandling, error) {
	sig, err := ParseSignal(name)
	if err != nil {
		return SignalHandling{}, err
	}
	var out SignalHandling
	err = s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		h := s.handling(sig)
		if stop != nil {
			h.Stop = *stop
			if h.Stop {
				h.Print = true
			}
		}
		if print != nil {
			h.Print = *print
			if !h.Print {
				h.Stop = false
			}
		}
		if pass != nil {
			h.Pass = *pass
		}
		if (sig == rsp.SIGTRAP || sig == rsp.SIGINT) && !h.Stop {
			return argErrorf("signal", "%s is used by the debugger itself and always stops", sig)
		}
		if s.sigs == nil {
			s.sigs = map[rsp.Signal]SignalHandling{}
		}
		s.sigs[sig] = h
		if err := s.applySignals(ctx); err != nil {
			return fmt.Errorf("tell the server which signals to pass: %w", err)
		}
		out = h
		return nil
	})
	return out, err
}
