package cexpr

import (
	"fmt"
	"strconv"
	"strings"
)

// The lexer of the C/C++ expression parser.

// token kinds
const (
	tEOF = iota
	tIdent
	tInt
	tFloat
	tChar
	tString
	tDollar // $reg, $1
	tPunct
)

type token struct {
	kind int
	s    string // identifier, punctuator, or literal text
	pos  int
}

var puncts = []string{
	"<<=", ">>=", "...", "..=", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*",
	"..", "+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^", "?", ":", ",", ".", "(", ")", "[", "]",
	"{", "}", "@", ";",
}

const maxExprLen = 4096

func lex(src string) ([]token, error) {
	if len(src) > maxExprLen {
		return nil, &SyntaxError{0, "expression too long"}
	}
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '$':
			j := i + 1
			for j < len(src) && (isIdentChar(src[j]) || src[j] == '$') {
				j++
			}
			toks = append(toks, token{tDollar, src[i+1 : j], i})
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			j, kind := scanNumber(src, i)
			toks = append(toks, token{kind, src[i:j], i})
			i = j
		case c == 'b' && i+1 < len(src) && src[i+1] == '\'':
			// Rust's byte literal b'a': the character's code as a u8
			j, err := scanQuoted(src, i+1)
			if err != nil {
				return nil, err
			}
			cs, err := unescape(src[i+2:j-1], i)
			if err != nil {
				return nil, err
			}
			if len(cs) != 1 || cs[0] > 0xff {
				return nil, &SyntaxError{i, "a byte literal holds one character of one byte"}
			}
			toks = append(toks, token{tInt, strconv.FormatUint(cs[0], 10) + "u8", i})
			i = j
		case c == '\'' || c == '"' || ((c == 'L' || c == 'u' || c == 'U') && i+1 < len(src) && (src[i+1] == '\'' || src[i+1] == '"')):
			j, err := scanQuoted(src, i)
			if err != nil {
				return nil, err
			}
			kind := tString
			if strings.IndexByte(src[i:j], '\'') >= 0 && src[j-1] == '\'' {
				kind = tChar
			}
			if body := src[i+1 : j-1]; c == '\'' && len(body) > 2 && !strings.Contains(body, `\`) {
				// GDB's quoted name: 'a.c'::counter, 'ns::f(int)',
				// 'puts@plt' (three characters or more, as GDB's lexer
				// takes them; two are an invalid character constant)
				toks = append(toks, token{tIdent, body, i})
				i = j
				continue
			}
			toks = append(toks, token{kind, src[i:j], i})
			i = j
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			// GDB's NAME@entry (a parameter's value at the function's
			// entry) is one token: a@entry + 1 is (a@entry) + 1.
			if rest := src[j:]; strings.HasPrefix(rest, "@entry") && (len(rest) == 6 || !isIdentChar(rest[6])) {
				j += 6
			}
			toks = append(toks, token{tIdent, src[i:j], i})
			i = j
		default:
			matched := false
			for _, p := range puncts {
				if strings.HasPrefix(src[i:], p) {
					toks = append(toks, token{tPunct, p, i})
					i += len(p)
					matched = true
					break
				}
			}
			if !matched {
				return nil, &SyntaxError{i, fmt.Sprintf("invalid character %q", c)}
			}
		}
	}
	toks = append(toks, token{tEOF, "", len(src)})
	return toks, nil
}

func isIdentStart(c byte) bool { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }

func scanNumber(src string, i int) (int, int) {
	j := i
	kind := tInt
	isHex := func(c byte) bool { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'f' }
	switch {
	case strings.HasPrefix(src[i:], "0b") || strings.HasPrefix(src[i:], "0B"):
		// GDB's binary literal: 0b101
		j += 2
		for j < len(src) && (src[j] == '0' || src[j] == '1' || src[j] == '_') {
			j++
		}
	case strings.HasPrefix(src[i:], "0x") || strings.HasPrefix(src[i:], "0X"):
		j += 2
		for j < len(src) && (isHex(src[j]) || src[j] == '.') {
			j++
		}
		// a hexadecimal float: 0x1.8p1, 0x10p-2
		if k := j + 1; j < len(src) && (src[j]|0x20) == 'p' {
			if k < len(src) && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k < len(src) && isDigit(src[k]) {
				kind = tFloat
				for j = k; j < len(src) && isDigit(src[j]); j++ {
				}
			}
		}
	default:
		for j < len(src) && (isDigit(src[j]) || src[j] == '.' || src[j] == '_' && j > i) {
			if strings.HasPrefix(src[j:], "..") {
				break // Rust's range: 2..4 is 2, "..", 4
			}
			if src[j] == '.' {
				kind = tFloat
			}
			j++
		}
		if j < len(src) && (src[j]|0x20) == 'e' {
			k := j + 1
			if k < len(src) && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k < len(src) && isDigit(src[k]) {
				kind = tFloat
				j = k
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			}
		}
	}
	for _, suf := range rustSuffixes {
		// Rust's typed literals: 5u8, 1_000i32, 2.5f32
		if k := j + len(suf); strings.HasPrefix(src[j:], suf) && (k == len(src) || !isIdentChar(src[k])) {
			if suf[0] == 'f' {
				kind = tFloat
			}
			return k, kind
		}
	}
	for j < len(src) && strings.IndexByte("uUlLfF", src[j]) >= 0 {
		if (src[j]|0x20) == 'f' && kind == tInt && !strings.HasPrefix(src[i:], "0x") {
			kind = tFloat
		}
		j++
	}
	return j, kind
}

// rustSuffixes are the type suffixes of Rust's number literals.
var rustSuffixes = []string{"i128", "i16", "i32", "i64", "i8", "isize", "u128", "u16", "u32", "u64", "u8", "usize", "f32", "f64"}

// RustSuffix splits a number literal into its digits (without Rust's _
// separators) and its Rust type suffix, if it has one.
func RustSuffix(lit string) (digits, suffix string) {
	lit = strings.ReplaceAll(lit, "_", "")
	hex := strings.HasPrefix(lit, "0x") || strings.HasPrefix(lit, "0X")
	for _, suf := range rustSuffixes {
		if strings.HasSuffix(lit, suf) && len(lit) > len(suf) && !(hex && suf[0] == 'f') {
			return lit[:len(lit)-len(suf)], suf
		}
	}
	return lit, ""
}

func scanQuoted(src string, i int) (int, error) {
	j := i
	for src[j] != '\'' && src[j] != '"' {
		j++
	}
	q := src[j]
	j++
	for j < len(src) {
		switch src[j] {
		case '\\':
			j += 2
			continue
		case q:
			return j + 1, nil
		}
		j++
	}
	return 0, &SyntaxError{i, "unterminated literal"}
}

// unescape decodes C escapes in a literal body.
func unescape(s string, pos int) ([]uint64, error) {
	var out []uint64
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			out = append(out, uint64(c)) // narrow literals hold bytes
			i++
			continue
		}
		i++
		if i >= len(s) {
			return nil, &SyntaxError{pos, "bad escape"}
		}
		e := s[i]
		i++
		switch e {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'a':
			out = append(out, 7)
		case 'b':
			out = append(out, 8)
		case 'f':
			out = append(out, 12)
		case 'v':
			out = append(out, 11)
		case 'e':
			out = append(out, 27)
		case 'x':
			j := i
			for j < len(s) && j-i < 16 && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
				j++
			}
			if j == i {
				return nil, &SyntaxError{pos, `\x with no digits`}
			}
			v, _ := strconv.ParseUint(s[i:j], 16, 64)
			out = append(out, v)
			i = j
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i - 1
			for j < len(s) && j < i+2 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i-1:j], 8, 64)
			out = append(out, v)
			i = j
		default:
			out = append(out, uint64(e))
		}
	}
	return out, nil
}
