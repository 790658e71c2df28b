package rr

import (
	"reflect"
	"testing"
)

func TestParseLaunchLine(t *testing.T) {
	tests := []struct {
		name, line string
		addr, exe  string
		ok         bool
	}{
		{
			name: "rr 5.9 quoted",
			line: `  'gdb' '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:34567' '/home/u/prog' `,
			addr: "127.0.0.1:34567", exe: "/home/u/prog", ok: true,
		},
		{
			name: "rr 5.8 path with a space",
			line: `  'gdb' '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:1234' '/tmp/my prog'`,
			addr: "127.0.0.1:1234", exe: "/tmp/my prog", ok: true,
		},
		{
			name: "rr 5.8 quote inside the path",
			line: `  'gdb' '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:1234' '/tmp/it'\''s'`,
			addr: "127.0.0.1:1234", exe: "/tmp/it's", ok: true,
		},
		{
			name: "rr 5.6 legacy, unquoted exe",
			line: `  gdb '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:6789' /usr/bin/true`,
			addr: "127.0.0.1:6789", exe: "/usr/bin/true", ok: true,
		},
		{
			name: "IPv6 fallback",
			line: `  'gdb' '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote tcp6:[::1]:40000' '/bin/ls'`,
			addr: "[::1]:40000", exe: "/bin/ls", ok: true,
		},
		{
			name: "-d lldb style first word and serve-files",
			line: `  'rust-gdb' '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote localhost:5555' '/x/y'`,
			addr: "localhost:5555", exe: "/x/y", ok: true,
		},
		{
			name: "no exe after the target",
			line: `  'gdb' '-ex' 'target extended-remote 127.0.0.1:1'`,
			addr: "127.0.0.1:1", exe: "", ok: true,
		},
		{name: "banner line", line: "Launch debugger with"},
		{name: "legacy banner", line: "Launch gdb with"},
		{name: "tracee output", line: "target extended-remote is a gdb command"},
		{name: "reached target", line: " ---> Reached target process 1234 at event 567."},
		{name: "empty", line: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, exe, ok := ParseLaunchLine(tt.line)
			if ok != tt.ok || addr != tt.addr || exe != tt.exe {
				t.Errorf("ParseLaunchLine(%q) = %q, %q, %v; want %q, %q, %v", tt.line, addr, exe, ok, tt.addr, tt.exe, tt.ok)
			}
		})
	}
}

func TestShellWords(t *testing.T) {
	tests := map[string][]string{
		`a b  c`:           {"a", "b", "c"},
		`'a b' c`:          {"a b", "c"},
		`'it'\''s' x`:      {"it's", "x"},
		`  'gdb' '-l' `:    {"gdb", "-l"},
		`''`:               {""},
		`a\ b`:             {"a b"},
		"tab\tsep":         {"tab", "sep"},
		`'unterminated x`:  {"unterminated x"},
		`mixed'quo'ted"x"`: {`mixedquoted"x"`},
	}
	for in, want := range tests {
		if got := shellWords(in); !reflect.DeepEqual(got, want) {
			t.Errorf("shellWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseLaunchLine(f *testing.F) {
	f.Add(`  'gdb' '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:34567' '/home/u/prog' `)
	f.Add(`  gdb '-ex' 'target extended-remote tcp6:[::1]:40000' /bin/ls`)
	f.Add(`'\`)
	f.Fuzz(func(t *testing.T, line string) {
		addr, _, ok := ParseLaunchLine(line)
		if ok && addr == "" {
			t.Fatalf("ok with an empty address for %q", line)
		}
	})
}

func TestParseVersion(t *testing.T) {
	tests := map[string]string{
		"rr version 5.6.0\n":         "5.6.0",
		"rr version 5.9.0+dev\n":     "5.9.0",
		"rr version 5.8.0-12-gabc\n": "5.8.0",
		"rr version 5.7\n":           "5.7",
	}
	for in, want := range tests {
		got, err := ParseVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseVersion("gdb 13.1"); err == nil {
		t.Error("ParseVersion accepted gdb's version")
	}
}
