package session

// The running flag and its wake-up channel: operations waiting for the
// session lock must fail at once when a resume starts (see acquire), so
// they wait on resumeStarted instead of polling the flag.

// resumeStarted returns a channel that is closed when the next resume
// starts (or already is, while one runs).
func (s *Session) resumeStarted() <-chan struct{} {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if s.resuming == nil {
		s.resuming = make(chan struct{})
	}
	return s.resuming
}

// setRunning sets the running flag and wakes the operations waiting in
// acquire when a resume starts.
func (s *Session) setRunning(on bool) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	was := s.running.Swap(on)
	switch {
	case on && !was:
		if s.resuming == nil {
			s.resuming = make(chan struct{})
		}
		close(s.resuming)
	case !on && was:
		s.resuming = make(chan struct{})
	}
}
