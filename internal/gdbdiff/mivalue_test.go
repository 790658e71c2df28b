package gdbdiff

import "strings"

// miValue turns a value formatted as GDB's print command shows it (our
// Format) into what GDB/MI shows: MI prints values with common_val_print,
// which omits the "(TYPE) " that print (value_print) puts before a
// top-level pointer or reference. A top-level value that could not be
// read at all ("<error: …>") is an error in MI.
func miValue(s string) string {
	if msg, ok := strings.CutPrefix(s, "<error: "); ok && strings.HasSuffix(msg, ">") && !strings.Contains(msg, "<error: ") {
		return "error: " + strings.TrimSuffix(msg, ">")
	}
	if !strings.HasPrefix(s, "(") {
		return s
	}
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				// Format puts a type in parentheses only before a
				// pointer or reference ("0x…", "@0x…", "<synthetic
				// pointer>"); no C value itself starts with '('.
				if rest, ok := strings.CutPrefix(s[i+1:], " "); ok && rest != "" {
					return rest
				}
				return s
			}
		}
	}
	return s
}
