package qemu

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"time"
)

// QMPError is an error reply from QEMU's machine protocol.
type QMPError struct {
	Command string
	Class   string
	Desc    string
}

func (e *QMPError) Error() string {
	return fmt.Sprintf("qmp %s: %s: %s", e.Command, e.Class, e.Desc)
}

// qmp is a minimal QMP client: one command at a time, events skipped.
type qmp struct {
	c net.Conn
	r *bufio.Reader
}

// dialQMP connects to addr, reads the greeting and enters command mode.
func dialQMP(ctx context.Context, addr string) (*qmp, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("qmp: %w", err)
	}
	q := &qmp{c: c, r: bufio.NewReader(c)}
	if err := q.deadline(ctx); err != nil {
		c.Close()
		return nil, err
	}
	var greeting struct {
		QMP json.RawMessage `json:"QMP"`
	}
	line, err := q.r.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &greeting)
	}
	if err != nil || greeting.QMP == nil {
		c.Close()
		return nil, fmt.Errorf("qmp: no greeting: %v %q", err, line)
	}
	if _, err := q.execute(ctx, "qmp_capabilities", nil); err != nil {
		c.Close()
		return nil, err
	}
	return q, nil
}

func (q *qmp) deadline(ctx context.Context) error {
	d, ok := ctx.Deadline()
	if !ok {
		d = time.Now().Add(10 * time.Second)
	}
	return q.c.SetDeadline(d)
}

// execute runs one command and returns its "return" value.
func (q *qmp) execute(ctx context.Context, cmd string, args any) (json.RawMessage, error) {
	if err := q.deadline(ctx); err != nil {
		return nil, err
	}
	req := map[string]any{"execute": cmd}
	if args != nil {
		req["arguments"] = args
	}
	b, _ := json.Marshal(req)
	if _, err := q.c.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("qmp %s: %w", cmd, err)
	}
	for {
		line, err := q.r.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("qmp %s: %w", cmd, err)
		}
		var resp struct {
			Event  string          `json:"event"`
			Return json.RawMessage `json:"return"`
			Error  *struct {
				Class string `json:"class"`
				Desc  string `json:"desc"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, fmt.Errorf("qmp %s: bad reply %q: %w", cmd, line, err)
		}
		switch {
		case resp.Event != "":
			continue
		case resp.Error != nil:
			return nil, &QMPError{Command: cmd, Class: resp.Error.Class, Desc: resp.Error.Desc}
		default:
			return resp.Return, nil
		}
	}
}

func (q *qmp) close() error { return q.c.Close() }
