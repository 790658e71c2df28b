package session

import (
	"regexp"
	"strings"
	"testing"
)

// TestEvaluateExpand: expand returns the value's parts in pre-order, each
// part printed as the value itself prints it, down to the depth asked for,
// and says where it cut.
func TestEvaluateExpand(t *testing.T) {
	s := liveSession(t, "counter", "walk")
	ctx := t.Context()
	r, err := s.EvaluateWith(ctx, "list", EvalOptions{Expand: 2})
	if err != nil {
		t.Fatal(err)
	}
	type part struct {
		level int
		name  string
		value string // a regexp
		cut   bool
	}
	want := []part{
		{1, "*list", `^\{name = 0x[0-9a-f]+ "alpha", value = 1, next = 0x[0-9a-f]+ <n2>\}$`, false},
		{2, "name", `^0x[0-9a-f]+ "alpha"$`, false},
		{2, "value", `^1$`, false},
		{2, "next", `^0x[0-9a-f]+ <n2>$`, true}, // its pointee is level 3
	}
	if len(r.Parts) != len(want) || r.PartsCut {
		t.Fatalf("parts %+v (cut %v), want %d", r.Parts, r.PartsCut, len(want))
	}
	for i, w := range want {
		p := r.Parts[i]
		if p.Level != w.level || p.Name != w.name || !regexp.MustCompile(w.value).MatchString(p.Value) || p.Cut != w.cut {
			t.Errorf("part %d = %+v, want %+v", i, p, w)
		}
	}
	// A part prints as the expression naming it does.
	for expr, i := range map[string]int{"list->name": 1, "list->next": 3} {
		v, err := s.Evaluate(ctx, expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Parts[i].Value; got != v.Value && "("+r.Parts[i].Type+") "+got != v.Value {
			t.Errorf("part %s = %q, rr_evaluate %s = %q", r.Parts[i].Name, got, expr, v.Value)
		}
	}
	// A character array is a string: its text says it all, no parts.
	r, err = s.EvaluateWith(ctx, "greeting", EvalOptions{Expand: 1})
	if err != nil || len(r.Parts) != 0 || r.PartsCut || !strings.HasPrefix(r.Value, `"hello`) {
		t.Errorf("greeting: %+v %v", r, err)
	}
	// Without expand: no parts.
	if r, err = s.Evaluate(ctx, "list"); err != nil || len(r.Parts) != 0 {
		t.Errorf("no expand: %+v %v", r, err)
	}
}
