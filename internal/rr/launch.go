package rr

import (
	"net"
	"regexp"
	"strings"
)

// listenRE finds the debug address in the gdb command line rr prints on
// stderr once the replay has reached its target (rr-rsp.md §1.2):
//
//	rr >= 5.8:  'gdb' '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:34567' '/bin/prog'
//	rr <= 5.7:  gdb '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:34567' /bin/prog
//	IPv6:       ... 'target extended-remote tcp6:[::1]:34567' ...
var listenRE = regexp.MustCompile(`target extended-remote (?:tcp6:\[([^\]]+)\]|([^:' ]+)):(\d+)`)

// ParseLaunchLine reads one line of rr's stderr. If it is the debugger
// command line rr prints when its server listens, it returns the address to
// dial ("127.0.0.1:34567", "[::1]:34567") and the executable path (the last
// argument, with rr's shell quoting removed; "" if there is none).
func ParseLaunchLine(line string) (addr, exe string, ok bool) {
	m := listenRE.FindStringSubmatchIndex(line)
	if m == nil {
		return "", "", false
	}
	var host string
	if m[2] >= 0 {
		host = line[m[2]:m[3]]
	} else {
		host = line[m[4]:m[5]]
	}
	addr = net.JoinHostPort(host, line[m[6]:m[7]])
	words := shellWords(line)
	if n := len(words); n > 0 && !strings.Contains(words[n-1], "target extended-remote") {
		exe = words[n-1]
	}
	return addr, exe, true
}

// shellWords splits s the way a POSIX shell would for the quoting rr uses:
// single-quoted strings are literal, a backslash outside quotes escapes the
// next byte (rr writes a quote inside a word as '\”), and runs of blanks
// separate words.
func shellWords(s string) []string {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote bool // inside '…'
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote:
			if c == '\'' {
				quote = false
			} else {
				cur.WriteByte(c)
			}
		case c == '\'':
			quote, in = true, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
