package gdbmi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// GDB/MI output syntax (GDB manual, "GDB/MI Output Syntax"):
//
//	record  = [token] ("^" | "*" | "+" | "=") class ("," result)*
//	        | ("~" | "@" | "&") c-string
//	        | "(gdb)"
//	result  = variable "=" value
//	value   = c-string | tuple | list
//	tuple   = "{}" | "{" result ("," result)* "}"
//	list    = "[]" | "[" value ("," value)* "]" | "[" result ("," result)* "]"

// Record kinds, named by their leading character.
const (
	KindResult  = '^' // ^done, ^error, ^connected, ^running, ^exit
	KindExec    = '*' // *stopped, *running
	KindStatus  = '+'
	KindNotify  = '=' // =thread-created, =library-loaded, …
	KindConsole = '~'
	KindTarget  = '@'
	KindLog     = '&'
	KindPrompt  = '(' // the "(gdb)" line
)

// Record is one line of MI output.
type Record struct {
	Token   string   // the command's numeric token, if any
	Kind    byte     // one of the Kind constants
	Class   string   // "done", "error", "stopped", … (not for streams)
	Results []Result // in output order
	Text    string   // decoded text of a stream record
}

// Result is one name=value pair.
type Result struct {
	Name  string
	Value Value
}

// ValueKind says which of Value's fields is used.
type ValueKind uint8

const (
	Const ValueKind = iota // Str
	Tuple                  // Results
	List                   // Values, or Results for a list of results
)

// Value is an MI value: a string, a tuple or a list.
type Value struct {
	Kind    ValueKind
	Str     string
	Results []Result
	Values  []Value
}

// Field returns the value of the first result called name, and whether
// there is one. It works on tuples and on lists of results.
func (v Value) Field(name string) (Value, bool) { return field(v.Results, name) }

// Field returns the value of the record's first result called name.
func (r Record) Field(name string) (Value, bool) { return field(r.Results, name) }

// String returns the value of the result called name if it is a string,
// else "".
func (r Record) String(name string) string {
	v, ok := r.Field(name)
	if !ok || v.Kind != Const {
		return ""
	}
	return v.Str
}

func field(rs []Result, name string) (Value, bool) {
	for _, r := range rs {
		if r.Name == name {
			return r.Value, true
		}
	}
	return Value{}, false
}

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("malformed mi output")

// maxDepth bounds tuple/list nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

// ParseRecord parses one line of MI output (without its newline).
func ParseRecord(line string) (Record, error) {
	line = strings.TrimSuffix(line, "\r")
	if strings.TrimRight(line, " ") == "(gdb)" {
		return Record{Kind: KindPrompt}, nil
	}
	p := parser{s: line}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	rec := Record{Token: line[:i]}
	p.pos = i
	if p.pos >= len(line) {
		return Record{}, p.errorf("no record type")
	}
	rec.Kind = line[p.pos]
	p.pos++
	switch rec.Kind {
	case KindConsole, KindTarget, KindLog:
		if rec.Token != "" {
			return Record{}, p.errorf("token on a stream record")
		}
		text, err := p.cstring()
		if err != nil {
			return Record{}, err
		}
		rec.Text = text
	case KindResult, KindExec, KindStatus, KindNotify:
		rec.Class = p.word()
		if rec.Class == "" {
			return Record{}, p.errorf("no result class")
		}
		for p.pos < len(p.s) {
			if err := p.expect(','); err != nil {
				return Record{}, err
			}
			r, err := p.result(0)
			if err != nil {
				return Record{}, err
			}
			rec.Results = append(rec.Results, r)
		}
	default:
		return Record{}, p.errorf("unknown record type %q", rec.Kind)
	}
	if p.pos != len(p.s) {
		return Record{}, p.errorf("trailing text")
	}
	return rec, nil
}

type parser struct {
	s   string
	pos int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrSyntax, p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) expect(c byte) error {
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		return p.errorf("want %q", c)
	}
	p.pos++
	return nil
}

// word reads a result class or variable name: anything up to '=' or ','.
func (p *parser) word() string {
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '=' || c == ',' || c == '"' || c == '{' || c == '}' || c == '[' || c == ']' {
			break
		}
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *parser) result(depth int) (Result, error) {
	name := p.word()
	if name == "" {
		return Result{}, p.errorf("no variable name")
	}
	if err := p.expect('='); err != nil {
		return Result{}, err
	}
	v, err := p.value(depth)
	return Result{Name: name, Value: v}, err
}

func (p *parser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.errorf("nesting deeper than %d", maxDepth)
	}
	if p.pos >= len(p.s) {
		return Value{}, p.errorf("missing value")
	}
	switch p.s[p.pos] {
	case '"':
		s, err := p.cstring()
		return Value{Kind: Const, Str: s}, err
	case '{':
		p.pos++
		v := Value{Kind: Tuple}
		if p.pos < len(p.s) && p.s[p.pos] == '}' {
			p.pos++
			return v, nil
		}
		for {
			r, err := p.result(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.Results = append(v.Results, r)
			if done, err := p.next('}'); err != nil || done {
				return v, err
			}
		}
	case '[':
		p.pos++
		v := Value{Kind: List}
		if p.pos >= len(p.s) {
			return Value{}, p.errorf("unterminated list")
		}
		if p.s[p.pos] == ']' {
			p.pos++
			return v, nil
		}
		// A list holds either values or results; the first item decides.
		results := p.s[p.pos] != '"' && p.s[p.pos] != '{' && p.s[p.pos] != '['
		for {
			if results {
				r, err := p.result(depth + 1)
				if err != nil {
					return Value{}, err
				}
				v.Results = append(v.Results, r)
			} else {
				e, err := p.value(depth + 1)
				if err != nil {
					return Value{}, err
				}
				v.Values = append(v.Values, e)
			}
			if done, err := p.next(']'); err != nil || done {
				return v, err
			}
		}
	}
	return Value{}, p.errorf("bad value start %q", p.s[p.pos])
}

// next consumes ',' (more items follow) or the closing byte (done).
func (p *parser) next(closing byte) (done bool, err error) {
	if p.pos >= len(p.s) {
		return false, p.errorf("unterminated, want %q", closing)
	}
	switch p.s[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, p.errorf("want ',' or %q", closing)
}

// cstring reads a double-quoted C string with GDB's escapes: \n \t \" \\
// \e (ESC), the other single-letter C escapes, octal \ooo and hex \xhh.
func (p *parser) cstring() (string, error) {
	if err := p.expect('"'); err != nil {
		return "", err
	}
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		switch c {
		case '"':
			return b.String(), nil
		case '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", p.errorf("unterminated string")
}

var simpleEscapes = map[byte]byte{
	'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f', 'v': '\v', 'a': '\a',
	'e': 0x1b, '"': '"', '\\': '\\', '\'': '\'', '?': '?',
}

func (p *parser) escape(b *strings.Builder) error {
	if p.pos >= len(p.s) {
		return p.errorf("unterminated escape")
	}
	c := p.s[p.pos]
	p.pos++
	if r, ok := simpleEscapes[c]; ok {
		b.WriteByte(r)
		return nil
	}
	switch {
	case c >= '0' && c <= '7':
		end := p.pos
		for end < len(p.s) && end < p.pos+2 && p.s[end] >= '0' && p.s[end] <= '7' {
			end++
		}
		v, _ := strconv.ParseUint(p.s[p.pos-1:end], 8, 16)
		p.pos = end
		b.WriteByte(byte(v))
		return nil
	case c == 'x':
		end := p.pos
		for end < len(p.s) && end < p.pos+2 && isHex(p.s[end]) {
			end++
		}
		if end == p.pos {
			return p.errorf(`\x without hex digits`)
		}
		v, _ := strconv.ParseUint(p.s[p.pos:end], 16, 8)
		p.pos = end
		b.WriteByte(byte(v))
		return nil
	}
	return p.errorf("unknown escape \\%c", c)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Quote returns s as an MI c-string argument, quotes included.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
