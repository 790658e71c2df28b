package tools

import (
	"strings"
	"testing"
)

func TestDecodeArgs(t *testing.T) {
	type in struct {
		sessionArg
		Name  string   `json:"name"`
		Count int      `json:"count,omitempty"`
		Flags []string `json:"flags,omitempty"`
	}
	for _, tc := range []struct {
		args    map[string]any
		wantErr string
		want    in
	}{
		{map[string]any{"name": "x"}, "", in{Name: "x"}},
		{map[string]any{"name": "x", "session": "s2", "count": 3.0, "flags": []any{"a"}}, "", in{sessionArg{"s2"}, "x", 3, []string{"a"}}},
		{map[string]any{"name": "x", "count": nil}, "", in{Name: "x"}},
		{map[string]any{}, `missing required argument "name"`, in{}},
		{map[string]any{"name": "x", "nme": 1}, `unknown argument "nme"; this tool takes: session, name, count, flags`, in{}},
		{map[string]any{"name": 5}, `argument "name" must be a string, not number`, in{}},
		{map[string]any{"name": "x", "count": 1.5}, `argument "count" must be an integer, not number 1.5`, in{}},
		{map[string]any{"name": "x", "flags": "a"}, `argument "flags" must be an array of strings, not string`, in{}},
	} {
		var got in
		err := decodeArgs(tc.args, &got)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.wantErr)
		case tc.wantErr == "" && (got.Name != tc.want.Name || got.Count != tc.want.Count || got.Session != tc.want.Session || strings.Join(got.Flags, ",") != strings.Join(tc.want.Flags, ",")):
			t.Errorf("%v: got %+v, want %+v", tc.args, got, tc.want)
		}
	}
}
