package gdbdiff

import "strings"

// miValue turns a variable's value formatted as GDB's print command
// shows it (our Format) into what GDB/MI shows: miText, and a value that
// could not be read at all ("<error: …>") is an error in MI.
func miValue(s string) string {
	if e, ok := miError(s); ok {
		return e
	}
	return miText(s)
}

// miError is s, a value that is entirely "<error: …>", as MI gives it:
// an error.
func miError(s string) (string, bool) {
	if msg, ok := strings.CutPrefix(s, "<error: "); ok && strings.HasSuffix(msg, ">") && !strings.Contains(msg, "<error: ") {
		return "error: " + strings.TrimSuffix(msg, ">"), true
	}
	return s, false
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

// printValue is an MI value as print and info locals show it. MI prints
// values with common_val_print, which leaves out value_check_printable:
// a struct or class optimized out as a whole prints there member by
// member ("{a = <optimized out>, b = <optimized out>}"), where GDB's
// print and info locals show "<optimized out>", as rrmcp does. A value
// with any member known, or anything else, is s unchanged.
func printValue(s string) string {
	if !strings.HasPrefix(s, "{") || !strings.Contains(s, "<optimized out>") {
		return s
	}
	rest := strings.ReplaceAll(s, "<optimized out>", "")
	for rest != "" {
		switch c := rest[0]; {
		case c == '{' || c == '}' || c == ',' || c == ' ':
			rest = rest[1:]
		case c == '<': // a base class: "<Base<T>> = "
			depth, i := 0, 0
			for ; i < len(rest); i++ {
				if rest[i] == '<' {
					depth++
				} else if rest[i] == '>' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			after, ok := strings.CutPrefix(rest[min(i+1, len(rest)):], " = ")
			if !ok {
				return s
			}
			rest = after
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z': // a member: "name = "
			i := 1
			for i < len(rest) && (rest[i] == '_' || 'a' <= rest[i] && rest[i] <= 'z' || 'A' <= rest[i] && rest[i] <= 'Z' || '0' <= rest[i] && rest[i] <= '9') {
				i++
			}
			after, ok := strings.CutPrefix(rest[i:], " = ")
			if !ok {
				return s
			}
			rest = after
		default:
			return s
		}
	}
	return "<optimized out>"
}
