package tools

import (
	"encoding/json"
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
	} {
		var got in
		err := decodeArgs(json.RawMessage(tc.args), &got)
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
