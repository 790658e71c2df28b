package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rrmcp/rrmcp/rsp"
)

// ClientForward returns a ForwardFunc that sends GDB's reads over c. Hg goes
// through c.SelectThread, so the client's cache of the selected thread
// stays true; everything else through c.Exchange, which never resumes.
// Each call holds mu (may be nil) while it uses c: pass the lock that
// guards the session's own use of the client.
func ClientForward(c *rsp.Client, mu sync.Locker) ForwardFunc {
	return func(ctx context.Context, pkt string) (string, error) {
		if mu != nil {
			mu.Lock()
			defer mu.Unlock()
		}
		if tid, ok := strings.CutPrefix(pkt, "Hg"); ok {
			t, err := rsp.ParseThread(tid)
			if err != nil {
				return errReply, nil
			}
			return replyOf(c.SelectThread(ctx, 'g', t))
		}
		return c.Exchange(ctx, pkt, false)
	}
}

// replyOf turns the result of a command that answers OK into a reply.
func replyOf(err error) (string, error) {
	var re *rsp.Error
	switch {
	case err == nil:
		return "OK", nil
	case errors.As(err, &re):
		return fmt.Sprintf("E%02x", re.Code&0xff), nil
	case errors.Is(err, rsp.ErrUnsupported):
		return "", nil
	}
	return "", err
}
