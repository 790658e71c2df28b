package rsp

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// RRCmd runs an rr extension command (qRRCmd) and returns rr's reply text,
// hex-decoded, with the trailing newline trimmed. tid is the recorded tid
// the command applies to (-1: the current thread). args are raw strings;
// the client hex-encodes them.
//
// The packet format follows rr's version (Options.RRVersion): rr >= 5.8
// takes "qRRCmd:<name>:<tid>[:<hexarg>]…", older rr "qRRCmd:<hex name>[:<hexarg>]…"
// (with Hg selecting the thread). Without a version the client probes once
// with "qRRCmd:when:-1", which older rr answers with "Command ” not found".
func (c *Client) RRCmd(ctx context.Context, name string, tid int64, args ...string) (string, error) {
	if c.g.dialect != DialectRR {
		return "", refused("qRRCmd:"+name, "qRRCmd is rr-only; dialect is "+c.g.dialect.String())
	}
	if !c.rrCmdProbed {
		c.g.rrNewCmd = true
		out, err := c.rrCmd(ctx, "when", -1)
		if err != nil {
			return "", fmt.Errorf("probe qRRCmd format: %w", err)
		}
		c.rrCmdProbed = true
		c.g.rrNewCmd = !strings.Contains(out, "not found")
	}
	return c.rrCmd(ctx, name, tid, args...)
}

func (c *Client) rrCmd(ctx context.Context, name string, tid int64, args ...string) (string, error) {
	var b strings.Builder
	b.WriteString("qRRCmd:")
	if c.g.rrNewCmd {
		b.WriteString(name + ":" + strconv.FormatInt(tid, 10))
	} else {
		b.WriteString(hex.EncodeToString([]byte(name)))
		if tid > 0 {
			if err := c.selectThread(ctx, 'g', Thread{Pid: c.pid, Tid: tid}); err != nil {
				return "", fmt.Errorf("rr %s: %w", name, err)
			}
		}
	}
	for _, a := range args {
		b.WriteString(":" + hex.EncodeToString([]byte(a)))
	}
	r, err := c.query(ctx, b.String())
	if !rrReadOnly(name) {
		// back/forward (and unknown commands) may move the replay
		// without a stop reply: re-read registers afterwards.
		c.invalidate()
	}
	if err != nil {
		return "", fmt.Errorf("rr %s: %w", name, err)
	}
	text, err := hex.DecodeString(r)
	if err != nil {
		return "", &ProtocolError{Packet: short(b.String()), Data: strconv.Quote(short(r)), Msg: "qRRCmd reply is not hex"}
	}
	return strings.TrimRight(string(text), "\n"), nil
}

// rrReadOnly reports whether rr command name leaves the replay where it is.
func rrReadOnly(name string) bool {
	switch name {
	case "when", "when-ticks", "when-tid", "elapsed-time", "absolute-time", "when-end",
		"info recording", "info checkpoints", "checkpoint", "delete checkpoint", "rr-history-push":
		return true
	}
	return false
}

// rrCmdReadOnly reports whether a raw qRRCmd packet (either format) names a
// read-only command.
func rrCmdReadOnly(pkt string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(pkt, "qRRCmd:"), ":")
	if b, err := hex.DecodeString(name); err == nil && len(b) > 0 {
		name = string(b)
	}
	return rrReadOnly(name)
}

// rrNumber runs cmd and parses the integer after prefix.
func (c *Client) rrNumber(ctx context.Context, cmd string, prefixes ...string) (int64, string, error) {
	out, err := c.RRCmd(ctx, cmd, -1)
	if err != nil {
		return 0, "", err
	}
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(out, p); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			if err == nil {
				return n, p, nil
			}
		}
	}
	return 0, "", fmt.Errorf("rr %s: unexpected reply %q", cmd, out)
}

// When returns the number of the last completed event ("Completed event:
// N" on rr >= 5.8; older rr's "Current event: N+1" is converted).
func (c *Client) When(ctx context.Context) (int64, error) {
	n, prefix, err := c.rrNumber(ctx, "when", "Completed event:", "Current event:")
	if prefix == "Current event:" {
		n--
	}
	return n, err
}

// WhenTicks returns the tick count of the current thread ("when-ticks").
func (c *Client) WhenTicks(ctx context.Context) (int64, error) {
	n, _, err := c.rrNumber(ctx, "when-ticks", "Current tick:")
	return n, err
}

// WhenTid returns the replay-session tid of the current thread ("when-tid").
func (c *Client) WhenTid(ctx context.Context) (int64, error) {
	n, _, err := c.rrNumber(ctx, "when-tid", "Current tid:")
	return n, err
}

// Checkpoint creates an rr checkpoint at the current position and returns
// its id. where is a label stored with it (rr requires one).
func (c *Client) Checkpoint(ctx context.Context, where string) (int, error) {
	if where == "" {
		return 0, refused("qRRCmd:checkpoint", "rr crashes on checkpoint without an argument; give a label")
	}
	out, err := c.RRCmd(ctx, "checkpoint", -1, where)
	if err != nil {
		return 0, err
	}
	rest, ok := strings.CutPrefix(out, "Checkpoint ")
	if ok {
		num, _, _ := strings.Cut(rest, " ")
		if id, err := strconv.Atoi(num); err == nil {
			return id, nil
		}
	}
	return 0, fmt.Errorf("rr checkpoint: %s", out)
}

// CheckpointInfo is one row of "info checkpoints".
type CheckpointInfo struct {
	ID    int
	When  string // event number as rr prints it
	Where string // the label given at creation
}

// Checkpoints lists rr's checkpoints.
func (c *Client) Checkpoints(ctx context.Context) ([]CheckpointInfo, error) {
	out, err := c.RRCmd(ctx, "info checkpoints", -1)
	if err != nil {
		return nil, err
	}
	return parseCheckpoints(out)
}

func parseCheckpoints(out string) ([]CheckpointInfo, error) {
	if strings.HasPrefix(out, "No checkpoints") {
		return nil, nil
	}
	lines := strings.Split(out, "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "ID") {
		return nil, fmt.Errorf("rr info checkpoints: unexpected reply %q", out)
	}
	var list []CheckpointInfo
	for _, l := range lines[1:] {
		if l == "" {
			continue
		}
		f := strings.SplitN(l, "\t", 3)
		id, err := strconv.Atoi(f[0])
		if err != nil || len(f) < 2 {
			return nil, fmt.Errorf("rr info checkpoints: bad line %q", l)
		}
		ci := CheckpointInfo{ID: id, When: f[1]}
		if len(f) == 3 {
			ci.Where = f[2]
		}
		list = append(list, ci)
	}
	return list, nil
}

// DeleteCheckpoint deletes checkpoint id.
func (c *Client) DeleteCheckpoint(ctx context.Context, id int) error {
	out, err := c.RRCmd(ctx, "delete checkpoint", -1, strconv.Itoa(id))
	if err != nil {
		return err
	}
	if !strings.HasPrefix(out, "Deleted checkpoint") {
		return fmt.Errorf("rr delete checkpoint %d: %s", id, out)
	}
	return nil
}
