package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// decodeArgs decodes a call's arguments (the JSON text the client sent,
// an object, or nothing) into dst (a pointer to a struct with json tags).
// Unlike mcp-go's BindArguments it rejects unknown arguments, requires
// every field whose tag lacks omitempty, takes null as not given, and
// says in plain words what is wrong. The text is decoded once into dst:
// numbers keep their precision (an integer above 2^53 is not rounded
// through a float).
func decodeArgs(raw json.RawMessage, dst any) error {
	t := reflect.TypeOf(dst).Elem()
	known, required := argFields(t)
	var args map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return fmt.Errorf("the arguments must be a JSON object of named arguments, not %s", jsonKindOf(raw))
		}
	}
	nulls := false
	for k, v := range args {
		if !slices.Contains(known, k) {
			if len(known) == 0 {
				return fmt.Errorf("unknown argument %q: this tool takes no arguments", k)
			}
			return fmt.Errorf("unknown argument %q; this tool takes: %s", k, strings.Join(known, ", "))
		}
		if string(v) == "null" {
			delete(args, k) // null = not given
			nulls = true
		}
	}
	for _, k := range required {
		if _, ok := args[k]; !ok {
			return fmt.Errorf("missing required argument %q", k)
		}
	}
	if len(args) == 0 {
		return nil
	}
	if nulls {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			return fmt.Errorf("arguments are not valid JSON values: %v", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // in nested objects too
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("argument %q must be %s, not %s", te.Field, jsonKind(te.Type), te.Value)
		}
		return fmt.Errorf("bad arguments: %v", err)
	}
	return nil
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
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}
