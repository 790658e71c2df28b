package session

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Timeouts bound each kind of operation. The names and defaults are those
// of karellen-rr-mcp, so existing configurations keep working.
type Timeouts struct {
	Startup    time.Duration // RR_MCP_TIMEOUT_STARTUP: waiting for rr/gdbserver to listen (30 s)
	Connect    time.Duration // RR_MCP_TIMEOUT_CONNECT: connecting and loading symbols (60 s)
	Forward    time.Duration // RR_MCP_TIMEOUT_FORWARD: continue, step, next, finish (120 s)
	Reverse    time.Duration // RR_MCP_TIMEOUT_REVERSE: reverse execution (300 s)
	Breakpoint time.Duration // RR_MCP_TIMEOUT_BREAKPOINT: breakpoint/watchpoint operations (30 s)
	Eval       time.Duration // RR_MCP_TIMEOUT_EVAL: backtrace, evaluate, locals, … (30 s)
	// Interrupt bounds the wait for the stop after an interrupt, and for a
	// reply owed to an abandoned request; past it the connection is
	// declared dead (10 s; no variable: tests lower it).
	Interrupt time.Duration
}

// DefaultTimeouts returns karellen-rr-mcp's defaults.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		Startup:    30 * time.Second,
		Connect:    60 * time.Second,
		Forward:    120 * time.Second,
		Reverse:    300 * time.Second,
		Breakpoint: 30 * time.Second,
		Eval:       30 * time.Second,
		Interrupt:  10 * time.Second,
	}
}

// TimeoutsFromEnv reads the RR_MCP_TIMEOUT_* variables through getenv
// (os.Getenv in production). Values are seconds, fractions allowed
// ("0.5"). Unset or empty variables keep the default; an invalid one is an
// error naming the variable.
func TimeoutsFromEnv(getenv func(string) string) (Timeouts, error) {
	t := DefaultTimeouts()
	for _, v := range []struct {
		name string
		dst  *time.Duration
	}{
		{"RR_MCP_TIMEOUT_STARTUP", &t.Startup},
		{"RR_MCP_TIMEOUT_CONNECT", &t.Connect},
		{"RR_MCP_TIMEOUT_FORWARD", &t.Forward},
		{"RR_MCP_TIMEOUT_REVERSE", &t.Reverse},
		{"RR_MCP_TIMEOUT_BREAKPOINT", &t.Breakpoint},
		{"RR_MCP_TIMEOUT_EVAL", &t.Eval},
	} {
		s := strings.TrimSpace(getenv(v.name))
		if s == "" {
			continue
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 || f > 7*24*3600 {
			return t, fmt.Errorf("%s=%q: want a positive number of seconds", v.name, s)
		}
		*v.dst = time.Duration(f * float64(time.Second))
	}
	return t, nil
}
