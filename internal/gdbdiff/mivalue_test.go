package gdbdiff

import "strings"

// miValue turns a variable's value formatted as GDB's print command
// shows it (our Format) into what GDB/MI shows: miText, and a value that
// could not be read at all ("<error: …>") is an error in MI.
func miValue(s string) string {
	if msg, ok := strings.CutPrefix(s, "<error: "); ok && strings.HasSuffix(msg, ">") && !strings.Contains(msg, "<error: ") {
		return "error: " + strings.TrimSuffix(msg, ">")
	}
	return miText(s)
}

// miText is s as MI prints it: MI prints values with common_val_print,
// which omits the "(TYPE) " that print (value_print) puts before a
// top-level pointer or reference. An expression's value is miText of
// Evaluate's: an expression that cannot be read is Evaluate's error, and
// a value text of "<error: …>" is a pretty printer's (a std::string whose
// characters cannot be read), which MI shows as the value too.
func miText(s string) string {
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
