package dwarf

import (
	stddwarf "debug/dwarf"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"
)

// using is a C++ using directive (using namespace N;, DW_TAG_imported_module),
// using-declaration (using N::x;) or namespace alias (namespace A = N;),
// both DW_TAG_imported_declaration, as GDB records them
// (add_using_directive) and applies them where a name is not found
// (cp_lookup_symbol_via_imports).
type using struct {
	scope  string          // the namespace or class it is written in ("" at file scope or in a function)
	target stddwarf.Offset // DW_AT_import: the namespace, or the entity declared
	alias  string          // DW_AT_name: a namespace alias's name, "" otherwise
	module bool            // a using directive: every name of the namespace
	line   int64           // DW_AT_decl_line: GDB applies it from this line on
}

func newUsing(e *stddwarf.Entry, prefix string) using {
	u := using{scope: strings.TrimSuffix(prefix, "::"), module: e.Tag == stddwarf.TagImportedModule}
	u.target, _ = e.Val(stddwarf.AttrImport).(stddwarf.Offset)
	u.alias, _ = e.Val(stddwarf.AttrName).(string)
	u.line, _ = e.Val(stddwarf.AttrDeclLine).(int64)
	return u
}

// usingsIn are the using directives and declarations among the children
// of a function's block.
func usingsIn(n *godwarf.Tree) []using {
	var out []using
	for _, c := range n.Children {
		if c.Tag != stddwarf.TagImportedModule && c.Tag != stddwarf.TagImportedDeclaration {
			continue
		}
		u := using{module: c.Tag == stddwarf.TagImportedModule}
		u.target, _ = c.Val(stddwarf.AttrImport).(stddwarf.Offset)
		u.alias, _ = c.Val(stddwarf.AttrName).(string)
		u.line, _ = c.Val(stddwarf.AttrDeclLine).(int64)
		out = append(out, u)
	}
	return out
}

// usingNames are the qualified names name may mean through the using
// directives and declarations in effect at the frame's pc, in GDB's
// order: the innermost block's first, then the file's and those of the
// namespaces that enclose the function. A directive is in effect from
// its line on (GDB's using_direct::valid_line, which also takes one at
// or past the end of the block's code, where gcc sometimes places it).
// Each name starts with "::": it is looked up as is. A name already
// starting with "::" has none.
func (s *FrameScope) usingNames(name string) []string {
	fn := s.f.Function
	if fn == nil || fn.cu == nil || s.types == nil || strings.HasPrefix(name, "::") || !fn.cu.isCPlusPlus() {
		return nil
	}
	line := int64(-1)
	if le, ok := s.f.Image.PCToLine(s.f.filePC()); ok {
		line = int64(le.Line)
	}
	valid := func(u using, lo, hi uint64) bool {
		if line < 0 || u.line <= line {
			return true
		}
		end, ok := s.f.Image.PCToLine(hi - 1)
		return hi > lo && ok && u.line >= int64(end.Line)
	}
	var active []using
	nodes := s.f.scopeNodes()
	for i := len(nodes) - 1; i >= 0; i-- {
		lo, hi := blockBounds(nodes[i])
		for _, u := range usingsIn(nodes[i]) {
			if valid(u, lo, hi) {
				active = append(active, u)
			}
		}
	}
	// the file's, and the enclosing namespaces' (GDB's static block holds
	// them all, each applying in its own namespace and those inside it)
	from := strings.ReplaceAll(fn.Name, "(anonymous namespace)::", "")
	var lo, hi uint64
	for _, r := range fn.cu.ranges {
		if lo == 0 || r[0] < lo {
			lo = r[0]
		}
		hi = max(hi, r[1])
	}
	for _, u := range fn.cu.usings {
		if (u.scope == "" || from == u.scope || strings.HasPrefix(from, u.scope+"::")) && valid(u, lo, hi) {
			active = append(active, u)
		}
	}
	var out []string
	seen := map[string]bool{}
	var apply func(name string, dirs []using, depth int)
	apply = func(name string, dirs []using, depth int) {
		head, rest, _ := strings.Cut(name, "::")
		for _, u := range dirs {
			target := s.usingTarget(u.target)
			if target == "" {
				continue
			}
			var q string
			switch {
			case u.module:
				q = target + "::" + name
			case u.alias != "" && head == u.alias && rest != "":
				q = target + "::" + rest // namespace A = N: A::x is N::x
			case u.alias == "" && (target == head || strings.HasSuffix(target, "::"+head)):
				q = target // using N::x: x is N::x
				if rest != "" {
					q += "::" + rest
				}
			default:
				continue
			}
			if seen[q] {
				continue
			}
			seen[q] = true
			out = append(out, "::"+q)
			if depth < 4 && u.module {
				// the directives written in the namespace imported
				// (using namespace M inside N) apply to it too
				var inner []using
				for _, v := range fn.cu.usings {
					if v.scope == target {
						inner = append(inner, v)
					}
				}
				apply(name, inner, depth+1)
			}
		}
	}
	apply(name, active, 0)
	return out
}

// usingTarget is the qualified name of the namespace or entity a using
// directive or declaration imports, "" where it cannot be read.
func (s *FrameScope) usingTarget(off stddwarf.Offset) string {
	if off == 0 {
		return ""
	}
	r := s.f.Image.dw.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return ""
	}
	// a definition outside its namespace names itself through its
	// declaration (DW_AT_specification): the name, and the prefix
	e = s.types.declaredBy(e, func(e *stddwarf.Entry) bool { return e.Val(stddwarf.AttrName) != nil })
	off = e.Offset
	name, _ := e.Val(stddwarf.AttrName).(string)
	if name == "" {
		if e.Tag != stddwarf.TagNamespace {
			return ""
		}
		name = "(anonymous namespace)"
	}
	return strings.TrimSuffix(strings.ReplaceAll(s.types.prefixOf(off)+name, "(anonymous namespace)::", ""), "::(anonymous namespace)")
}

// blockBounds are the lowest and highest file addresses of block n's
// code (GDB's block start and end).
func blockBounds(n *godwarf.Tree) (lo, hi uint64) {
	for _, r := range n.Ranges {
		if lo == 0 || r[0] < lo {
			lo = r[0]
		}
		hi = max(hi, r[1])
	}
	return lo, hi
}
