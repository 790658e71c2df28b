package errkind

import (
	"errors"
	"fmt"
	"testing"
)

func TestNewMatchesItsKindOnly(t *testing.T) {
	s := New("rsp: process exited", Exited)
	err := fmt.Errorf("continue: %w", s)
	for _, tc := range []struct {
		target error
		want   bool
	}{{s, true}, {Exited, true}, {NotFound, false}, {New("rsp: process exited", Exited), false}} {
		if got := errors.Is(err, tc.target); got != tc.want {
			t.Errorf("errors.Is(%v, %v) = %v, want %v", err, tc.target, got, tc.want)
		}
	}
	if s.Error() != "rsp: process exited" {
		t.Errorf("text = %q", s.Error())
	}
}
