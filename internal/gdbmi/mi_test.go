package gdbmi

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func cstr(s string) Value { return Value{Kind: Const, Str: s} }

func TestParseRecord(t *testing.T) {
	tests := []struct {
		line string
		want Record
	}{
		{"(gdb)", Record{Kind: KindPrompt}},
		{"(gdb) ", Record{Kind: KindPrompt}},
		{"^done", Record{Kind: '^', Class: "done"}},
		{"12^done,value=\"42\"", Record{Token: "12", Kind: '^', Class: "done",
			Results: []Result{{"value", cstr("42")}}}},
		{`3^error,msg="No symbol \"x\" in current context."`, Record{Token: "3", Kind: '^', Class: "error",
			Results: []Result{{"msg", cstr(`No symbol "x" in current context.`)}}}},
		{`^error,msg="Cannot call functions in the program: may-call-functions is off.",code="undefined-command"`,
			Record{Kind: '^', Class: "error", Results: []Result{
				{"msg", cstr("Cannot call functions in the program: may-call-functions is off.")},
				{"code", cstr("undefined-command")}}}},
		{`~"Register cache flushed.\n"`, Record{Kind: '~', Text: "Register cache flushed.\n"}},
		{`&"warning: \\x \t\e[0m\101\0\""`, Record{Kind: '&', Text: "warning: \\x \t\x1b[0mA\x00\""}},
		{`@"\x41\x7e"`, Record{Kind: '@', Text: "A~"}},
		{`=thread-group-added,id="i1"`, Record{Kind: '=', Class: "thread-group-added",
			Results: []Result{{"id", cstr("i1")}}}},
		{`*stopped,reason="signal-received",frame={addr="0x401126",func="stop_here",args=[{name="v",value="0"}]},thread-id="1",stopped-threads="all"`,
			Record{Kind: '*', Class: "stopped", Results: []Result{
				{"reason", cstr("signal-received")},
				{"frame", Value{Kind: Tuple, Results: []Result{
					{"addr", cstr("0x401126")},
					{"func", cstr("stop_here")},
					{"args", Value{Kind: List, Values: []Value{
						{Kind: Tuple, Results: []Result{{"name", cstr("v")}, {"value", cstr("0")}}},
					}}},
				}}},
				{"thread-id", cstr("1")},
				{"stopped-threads", cstr("all")},
			}}},
		{`^done,thread-ids={thread-id="1",thread-id="2"},current-thread-id="1",number-of-threads="2"`,
			Record{Kind: '^', Class: "done", Results: []Result{
				{"thread-ids", Value{Kind: Tuple, Results: []Result{{"thread-id", cstr("1")}, {"thread-id", cstr("2")}}}},
				{"current-thread-id", cstr("1")},
				{"number-of-threads", cstr("2")},
			}}},
		{`^done,stack=[frame={level="0"},frame={level="1"}]`, Record{Kind: '^', Class: "done", Results: []Result{
			{"stack", Value{Kind: List, Results: []Result{
				{"frame", Value{Kind: Tuple, Results: []Result{{"level", cstr("0")}}}},
				{"frame", Value{Kind: Tuple, Results: []Result{{"level", cstr("1")}}}},
			}}},
		}}},
		{`^done,a=[],b={},c=[["x"],[]]`, Record{Kind: '^', Class: "done", Results: []Result{
			{"a", Value{Kind: List}},
			{"b", Value{Kind: Tuple}},
			{"c", Value{Kind: List, Values: []Value{{Kind: List, Values: []Value{cstr("x")}}, {Kind: List}}}},
		}}},
		{"^connected\r", Record{Kind: '^', Class: "connected"}},
	}
	for _, tt := range tests {
		got, err := ParseRecord(tt.line)
		if err != nil {
			t.Errorf("ParseRecord(%q): %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseRecord(%q)\n got %#v\nwant %#v", tt.line, got, tt.want)
		}
	}
}

func TestParseRecordErrors(t *testing.T) {
	for _, line := range []string{
		"", "12", "^", "x", "hello world", `~"unterminated`, `~"bad \q escape"`, `~"\x"`,
		`^done,`, `^done,value`, `^done,value=`, `^done,value=x`, `^done,value="1"junk`,
		`^done,a={b="1"`, `^done,a=[1]`, `^done,a=["1" "2"]`, `^done,a={"x"}`, `12~"token on stream"`,
		`^done,=1`, "^done," + strings.Repeat("a=[", 1000),
	} {
		if rec, err := ParseRecord(line); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseRecord(%q) = %+v, %v; want ErrSyntax", line, rec, err)
		}
	}
}

func TestFieldAccess(t *testing.T) {
	rec, err := ParseRecord(`^done,threads=[{id="1",target-id="Thread 1.2"}],n="3"`)
	if err != nil {
		t.Fatal(err)
	}
	if rec.String("n") != "3" || rec.String("threads") != "" || rec.String("missing") != "" {
		t.Errorf("String lookups wrong: %+v", rec)
	}
	threads, ok := rec.Field("threads")
	if !ok || len(threads.Values) != 1 {
		t.Fatalf("threads = %+v", threads)
	}
	if v, _ := threads.Values[0].Field("target-id"); v.Str != "Thread 1.2" {
		t.Errorf("target-id = %q", v.Str)
	}
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "x", `a "quoted" \ path`, "tab\tnl\ncr\r", "\x01\x7f", "v.size() > 0 ? 'a' : '\\n'"} {
		q := Quote(s)
		rec, err := ParseRecord("~" + q)
		if err != nil {
			t.Fatalf("Quote(%q) = %s does not parse: %v", s, q, err)
		}
		if rec.Text != s {
			t.Errorf("Quote round trip: %q -> %s -> %q", s, q, rec.Text)
		}
	}
}

func TestTargetLWP(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"Thread 0x7ffff7d8a740 (LWP 1235)", 1235, true},
		{"Thread 1234.1235", 1235, true},
		{"Thread 1235", 1235, true},
		{"process 1234", 1234, true},
		{"LWP 99", 0, false},
		{"", 0, false},
		{"Thread 0x7ffff7d8a740 (LWP x)", 0, false},
	}
	for _, tt := range tests {
		got, ok := targetLWP(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("targetLWP(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	for in, want := range map[string]int64{"p1cd6.1cd7": 0x1cd7, "4d3": 0x4d3} {
		if got, err := rspLWP(in); err != nil || got != want {
			t.Errorf("rspLWP(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "p1", "p1.-1", "0", "zz", "-1"} {
		if _, err := rspLWP(in); err == nil {
			t.Errorf("rspLWP(%q) succeeded", in)
		}
	}
}

// FuzzParseMI checks that the parser never panics, and that whatever it
// accepts it can describe consistently (stream records carry text only,
// result records a class).
func FuzzParseMI(f *testing.F) {
	for _, s := range []string{
		`^done,value="42"`, `12^error,msg="x"`, `~"a\nb"`, `*stopped,frame={args=[{name="v"}]}`,
		`^done,stack=[frame={level="0"}]`, `^done,a=[["x"],[]]`, `&"\e\101\x41"`, "(gdb)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		rec, err := ParseRecord(line)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		switch rec.Kind {
		case KindConsole, KindTarget, KindLog:
			if rec.Class != "" || rec.Results != nil || rec.Token != "" {
				t.Fatalf("stream record with result parts: %+v", rec)
			}
		case KindResult, KindExec, KindStatus, KindNotify:
			if rec.Class == "" {
				t.Fatalf("result record without class: %+v", rec)
			}
		case KindPrompt:
		default:
			t.Fatalf("unknown kind %q accepted", rec.Kind)
		}
	})
}
