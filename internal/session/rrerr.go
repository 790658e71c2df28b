package session

import "strings"

// rrMessage turns what rr printed on failure into one clean message: an
// uncaught C++ exception (rr pack on a damaged trace: "terminate called
// after throwing…", "what(): …", "stack: …") becomes its what() text; the
// stack addresses are dropped.
func rrMessage(stderr string) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "", strings.HasPrefix(l, "stack:"), strings.HasPrefix(l, "terminate called"):
		case strings.HasPrefix(l, "what():"):
			keep = append(keep, "rr failed on an unreadable or damaged trace: "+strings.TrimSpace(strings.TrimPrefix(l, "what():")))
		default:
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return "rr failed without saying why"
	}
	return Shorten(strings.Join(keep, "; "), 1000)
}
