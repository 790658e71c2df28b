package tools

import (
	"context"
	"fmt"

	"github.com/rrmcp/rrmcp/internal/session"
)

type signalIn struct {
	sessionArg
	Signal string `json:"signal" jsonschema:"signal name (SIGURG, URG) or Linux number"`
	Stop   *bool  `json:"stop,omitempty" jsonschema:"report the signal as a stop (implies print)"`
	Print  *bool  `json:"print,omitempty" jsonschema:"mention the signal (false implies stop=false)"`
	Pass   *bool  `json:"pass,omitempty" jsonschema:"deliver the signal to the program when it goes on"`
}

type signalOut struct {
	session.SignalHandling
}

func (o signalOut) Text() string {
	yn := func(b bool) string {
		if b {
			return "Yes"
		}
		return "No"
	}
	return fmt.Sprintf("%s: stop %s, print %s, pass %s", o.Signal, yn(o.Stop), yn(o.Print), yn(o.Pass))
}

func (r *registry) signalTools() {
	addOn(r, "rr_signal_handle", "Signal handling",
		"Show or change how the session treats a signal, like GDB's `handle`: stop (report it as a stop), print, pass (deliver it to the program). Defaults are GDB's: SIGALRM, SIGURG, SIGCHLD, SIGIO, SIGVTALRM, SIGPROF, SIGWINCH and SIGPOLL pass silently (the server delivers them without stopping, QPassSignals); SIGINT and SIGTRAP stop and are not passed; every other signal stops and is passed on the next continue. Omit stop, print and pass to show the current handling.",
		hints{idempotent: true},
		func(ctx context.Context, s *session.Session, in signalIn) (signalOut, error) {
			h, err := s.HandleSignal(ctx, in.Signal, in.Stop, in.Print, in.Pass)
			return signalOut{h}, err
		})
}
