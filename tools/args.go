package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
)

// argFieldList is what decodeArgsFields needs to know of an arguments
// type: worked out once per tool (add), not at every call.
type argFieldList struct{ known, required []string }

func newArgFields(t reflect.Type) argFieldList {
	known, required := argFields(t)
	return argFieldList{known, required}
}

// decodeArgsFields decodes a call's arguments (the JSON text the client
// sent, an object, or nothing) into dst (a pointer to a struct with json
// tags) whose fields newArgFields listed. Unlike mcp-go's BindArguments
// it rejects unknown arguments, requires every field whose tag lacks
// omitempty, takes null as not given, and says in plain words what is
// wrong. The text is decoded once into dst: numbers keep their precision
// (an integer above 2^53 is not rounded through a float).
func decodeArgsFields(raw json.RawMessage, dst any, fields argFieldList) error {
	known, required := fields.known, fields.required
	keys, ok := topKeys(raw)
	if !ok {
		// Not a plain object (or a key with escapes): read it as a map,
		// which says what is wrong.
		var args map[string]json.RawMessage
		if len(bytes.TrimSpace(raw)) > 0 {
			if err := json.Unmarshal(raw, &args); err != nil {
				return fmt.Errorf("the arguments must be a JSON object of named arguments, not %s", jsonKindOf(raw))
			}
		}
		keys = keys[:0]
		for k, v := range args {
			keys = append(keys, topKey{k, string(bytes.TrimSpace(v)) == "null"})
		}
	}
	given := 0
	for _, k := range keys {
		if !slices.Contains(known, k.name) {
			if len(known) == 0 {
				return fmt.Errorf("unknown argument %q: this tool takes no arguments", k.name)
			}
			return fmt.Errorf("unknown argument %q; this tool takes: %s", k.name, strings.Join(known, ", "))
		}
		if !k.null {
			given++
		}
	}
	for _, r := range required {
		if !slices.ContainsFunc(keys, func(k topKey) bool { return k.name == r && !k.null }) {
			return fmt.Errorf("missing required argument %q", r)
		}
	}
	if given == 0 {
		return nil
	}
	// One decode into dst; a null leaves its field as it is (not given).
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // in nested objects too
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if ft := argType(dst, te.Field); ft != nil && ft != te.Type {
				// an element of an array argument, a value of an object
				// one: the argument is of the right kind, a part is not
				part := "an element of it"
				if ft.Kind() == reflect.Map {
					part = "a value in it"
				}
				return fmt.Errorf("argument %q must be %s: %s is %s", te.Field, jsonKind(ft), part, withArticle(te.Value))
			}
			return fmt.Errorf("argument %q must be %s, not %s", te.Field, jsonKind(te.Type), te.Value)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("the arguments must be a JSON object of named arguments, not %s", jsonKindOf(raw))
		}
		return fmt.Errorf("bad arguments: %v", err)
	}
	return nil
}

// topKey is a key of the arguments object and whether its value is null.
type topKey struct {
	name string
	null bool
}

// topKeys lists the keys of a JSON object without decoding its values
// (they are decoded once, into the tool's struct). ok is false where the
// text is not a well-formed object whose keys have no escapes; the
// caller then reads it the slow way (so it does for keys that are not
// plain printable ASCII). Empty text and null are no keys.
func topKeys(raw []byte) (keys []topKey, ok bool) {
	i := 0
	ws := func() {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
			i++
		}
	}
	ws()
	if i == len(raw) || string(bytes.TrimSpace(raw)) == "null" {
		return nil, true
	}
	if raw[i] != '{' {
		return nil, false
	}
	i++
	ws()
	if i < len(raw) && raw[i] == '}' {
		i++
		ws()
		return nil, i == len(raw)
	}
	for {
		ws()
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		end := bytes.IndexByte(raw[i+1:], '"')
		if end < 0 {
			return nil, false
		}
		name := raw[i+1 : i+1+end]
		for _, c := range name {
			if c == '\\' || c >= 0x80 || c < 0x20 {
				return nil, false // escapes, non-ASCII: the map decode spells them
			}
		}
		i += end + 2
		ws()
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i++
		ws()
		start := i
		if !skipValue(raw, &i) {
			return nil, false
		}
		if slices.ContainsFunc(keys, func(k topKey) bool { return k.name == string(name) }) {
			return nil, false // a repeated key: the last one counts, as in a map
		}
		keys = append(keys, topKey{string(name), string(raw[start:i]) == "null"})
		ws()
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == '}' {
			i++
			ws()
			return keys, i == len(raw)
		}
		if raw[i] != ',' {
			return nil, false
		}
		i++
	}
}

// skipValue moves *i past the JSON value at it (without checking it
// further than its brackets and strings: the decode that follows does).
func skipValue(raw []byte, i *int) bool {
	depth := 0
	for *i < len(raw) {
		c := raw[*i]
		switch {
		case c == '"':
			*i++
			for *i < len(raw) && raw[*i] != '"' {
				if raw[*i] == '\\' {
					*i++
				}
				*i++
			}
			if *i >= len(raw) {
				return false
			}
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return true // the end of the enclosing object
			}
			depth--
		case c == ',' && depth == 0:
			return true
		}
		*i++
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return true
		}
	}
	return depth == 0
}

// jsonKindOf names a JSON value's kind for an error message.
func jsonKindOf(raw json.RawMessage) string {
	switch b := bytes.TrimSpace(raw); {
	case len(b) == 0:
		return "nothing"
	case b[0] == '[':
		return "an array"
	case b[0] == '"':
		return "a string"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	case b[0] == '{':
		return "malformed JSON"
	}
	return "a number"
}

// argFields lists the JSON names of t's fields and the required ones.
func argFields(t reflect.Type) (known, required []string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			k, r := argFields(f.Type)
			known, required = append(known, k...), append(required, r...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		known = append(known, name)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			required = append(required, name)
		}
	}
	return known, required
}

// argType is the Go type of the argument named name (its JSON name) in
// dst, a pointer to the tool's argument struct (embedded structs too); nil
// where there is none.
func argType(dst any, name string) reflect.Type {
	t := reflect.TypeOf(dst)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && tag == "" {
			if ft := argType(reflect.New(f.Type).Interface(), name); ft != nil {
				return ft
			}
			continue
		}
		if tag == name {
			return f.Type
		}
	}
	return nil
}

// withArticle puts "a" or "an" before a JSON type's name ("a number").
func withArticle(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(t.Elem()), "a "), "an ") + "s"
	case reflect.Map:
		if t.Elem().Kind() == reflect.String {
			return "an object whose values are strings"
		}
		return "an object"
	case reflect.Struct:
		return "an object"
	}
	return t.String()
}
