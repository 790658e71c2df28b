package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeArgs(t *testing.T) {
	type in struct {
		sessionArg
		Name  string   `json:"name"`
		Count int      `json:"count,omitempty"`
		Flags []string `json:"flags,omitempty"`
		Big   uint64   `json:"big,omitempty"`
	}
	for _, tc := range []struct {
		args    string
		wantErr string
		want    in
	}{
		{`{"name": "x"}`, "", in{Name: "x"}},
		{`{"name": "x", "session": "s2", "count": 3, "flags": ["a"]}`, "", in{sessionArg{"s2"}, "x", 3, []string{"a"}, 0}},
		{`{"name": "x", "count": null}`, "", in{Name: "x"}},
		{`{"name": "x", "count": null, "big": 18446744073709551615}`, "", in{Name: "x", Big: 1<<64 - 1}},
		{`{"name": "x", "big": 9007199254740993}`, "", in{Name: "x", Big: 1<<53 + 1}}, // not rounded through a float
		{`{}`, `missing required argument "name"`, in{}},
		{``, `missing required argument "name"`, in{}},
		{`null`, `missing required argument "name"`, in{}},
		{`["x"]`, `the arguments must be a JSON object of named arguments, not an array`, in{}},
		{`"x"`, `the arguments must be a JSON object of named arguments, not a string`, in{}},
		{`{"name": "x", "nme": 1}`, `unknown argument "nme"; this tool takes: session, name, count, flags, big`, in{}},
		{`{"name": 5}`, `argument "name" must be a string, not number`, in{}},
		{`{"name": "x", "count": 1.5}`, `argument "count" must be an integer, not number 1.5`, in{}},
		{`{"name": "x", "flags": "a"}`, `argument "flags" must be an array of strings, not string`, in{}},
		{`{"name": "x", "flags": ["a"], "count": null, "big": -1}`, `argument "big" must be an integer, not number -1`, in{}},
		{`{"name": null}`, `missing required argument "name"`, in{}},
		{`{"name": "a\"b,}", "flags": ["x]", "{"], "count": 2}`, "", in{Name: "a\"b,}", Count: 2, Flags: []string{"x]", "{"}}},
		{`{"na\u006de": "x"}`, "", in{Name: "x"}}, // an escaped key: read the slow way
		{`{"name": }`, `must be a JSON object of named arguments, not malformed JSON`, in{}},
		{`{"name": "x"} {}`, `must be a JSON object of named arguments, not malformed JSON`, in{}},
		{`{"name": "x", "flags": [1, {"a": [2]}]}`, `argument "flags" must be an array of strings: an element of it is a number`, in{}},
		{`  {  "name" : "x" , "session":"s" }  `, "", in{sessionArg{"s"}, "x", 0, nil, 0}},
		{`{"name": "x", "name": null}`, `missing required argument "name"`, in{}}, // the last one counts
	} {
		var got in
		err := decodeArgsFields(json.RawMessage(tc.args), &got, newArgFields(reflect.TypeFor[in]()))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.wantErr)
		case tc.wantErr == "" && (got.Name != tc.want.Name || got.Count != tc.want.Count || got.Session != tc.want.Session || got.Big != tc.want.Big || strings.Join(got.Flags, ",") != strings.Join(tc.want.Flags, ",")):
			t.Errorf("%v: got %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

func BenchmarkDecodeArgs(b *testing.B) {
	type in struct {
		sessionArg
		RegisterNames []string `json:"register_names,omitempty"`
		Address       string   `json:"address,omitempty"`
		Count         int      `json:"count,omitempty"`
	}
	for _, args := range []string{
		`{"address":"&bytes","count":64}`,
		`{"register_names":["rax","rbx","rcx","rdx","rsi","rdi","rbp","rsp","r8","r9","r10","r11","r12","r13","r14","r15","rip","eflags","cs","ss","ds","es","fs","gs","fs_base","gs_base"]}`,
		`{}`,
	} {
		fields := newArgFields(reflect.TypeFor[in]()) // as add does, once per tool
		b.Run(strings.SplitN(args, ":", 2)[0], func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var v in
				if err := decodeArgsFields(json.RawMessage(args), &v, fields); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzTopKeys: where topKeys reads an object, it is valid JSON (as far as
// a decode into a map says) with the same keys and nulls; it never
// panics on anything else.
func FuzzTopKeys(f *testing.F) {
	for _, s := range []string{`{"name": "x", "count": null}`, `{"a":{"b":[1,"]"]},"c":"\"}"}`, `{}`, ``, `null`, `["x"]`, `{"a":}`, `{"a":1} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		keys, ok := topKeys(raw)
		if !ok || len(keys) == 0 {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return // malformed inside a value: the decode into the tool's struct says so
		}
		for _, k := range keys {
			v, in := m[k.name]
			if !in || (string(v) == "null") != k.null {
				t.Fatalf("%q: key %+v, map %q", raw, k, m)
			}
		}
		if len(m) > len(keys) {
			t.Fatalf("%q: keys %+v, map %q", raw, keys, m)
		}
	})
}
