package dwarf

import (
	stddwarf "debug/dwarf"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"
)

// DWARF 5 and GNU call-site attributes.
const (
	attrCallOrigin   stddwarf.Attr = 0x7f
	attrCallTailCall stddwarf.Attr = 0x82
	attrGNUTailCall  stddwarf.Attr = 0x2115
)

// callSite is one DW_TAG_call_site of a function.
type callSite struct {
	ret    uint64 // file address after the call (or jump)
	target string
	// linkage is the target's linkage name, which tells overloads apart
	// ("" when DWARF has none).
	linkage string
	// origin is the DIE the site names: a function's concrete DIE (then
	// that very function, such as gcc's work rather than its clone
	// work.part.0), or a declaration or abstract origin.
	origin stddwarf.Offset
	tail   bool
}

// callSites returns the call sites of f with a known target.
func (f *Function) callSites() []callSite {
	f.sitesOnce.Do(func() { f.sites = f.readCallSites() })
	return f.sites
}

func (f *Function) readCallSites() []callSite {
	t, err := f.Tree()
	if err != nil {
		return nil
	}
	img := f.cu.img
	var out []callSite
	var walk func(n *godwarf.Tree)
	walk = func(n *godwarf.Tree) {
		for _, c := range n.Children {
			switch c.Tag {
			case stddwarf.TagCallSite, tagGNUCallSite:
				s := callSite{}
				if fl := c.AttrField(stddwarf.AttrCallReturnPC); fl != nil {
					s.ret, _ = fl.Val.(uint64)
				} else if fl := c.AttrField(stddwarf.AttrLowpc); fl != nil {
					s.ret, _ = fl.Val.(uint64)
				}
				var origin stddwarf.Offset
				if fl := c.AttrField(attrCallOrigin); fl != nil {
					origin, _ = fl.Val.(stddwarf.Offset)
				} else if fl := c.AttrField(stddwarf.AttrAbstractOrigin); fl != nil {
					origin, _ = fl.Val.(stddwarf.Offset)
				}
				if fl := c.AttrField(attrCallTailCall); fl != nil {
					s.tail, _ = fl.Val.(bool)
				} else if fl := c.AttrField(attrGNUTailCall); fl != nil {
					s.tail, _ = fl.Val.(bool)
				}
				if origin != 0 && s.ret != 0 {
					s.origin = origin
					s.target, s.linkage, _, _, _, _ = img.resolveDecl(origin)
					if s.target != "" {
						out = append(out, s)
					}
				}
			case stddwarf.TagLexDwarfBlock, stddwarf.TagInlinedSubroutine:
				walk(c)
			}
		}
	}
	walk(t)
	return out
}

// tailHop is one function in a chain of tail calls and the address after
// its tail jump.
type tailHop struct {
	fn  *Function
	ret uint64
}

// tailCallChain finds the functions that must have tail-called their way
// from the call in caller at file address ret to callee, as GDB's
// tail-call frames do: it follows DW_AT_call_tail_call sites from the
// call's target and returns the hops outermost first, or nil when the
// call site targets the callee directly, is unknown, or the chain is
// ambiguous.
func tailCallChain(caller *Function, ret uint64, callee *Function) []tailHop {
	if caller == nil || callee == nil || callee.dwarfName == "" {
		return nil
	}
	var target callSite
	for _, s := range caller.callSites() {
		if s.ret == ret && !s.tail {
			target = s
			break
		}
	}
	if target.target == "" {
		return nil
	}
	img := caller.cu.img
	// named is the functions a site may name: the one whose concrete DIE
	// it names or whose symbol its name is, else those of its name (not
	// an overload of it: a call in another unit names its declaration,
	// whose linkage name is the definition's).
	named := func(site callSite) (fs []*Function, exact bool) {
		// A declaration names the function of its symbol (GDB looks the
		// call target up by its physname): gcc's work, not its clone
		// work.part.0, which has the same DWARF name.
		sym := site.linkage
		if sym == "" {
			sym = site.target
		}
		addr, hasSym := img.SymbolAddr(sym)
		for _, f := range img.FuncsByName(site.target) {
			if f.Offset == site.origin || hasSym && f.Entry == addr {
				return []*Function{f}, true
			}
			if f.dwarfName == site.target && (site.linkage == "" || f.LinkageName == "" || f.LinkageName == site.linkage) {
				fs = append(fs, f)
			}
		}
		return fs, false
	}
	if fs, exact := named(target); exact && fs[0] == callee || !exact && target.target == callee.dwarfName {
		return nil // the call went to the callee itself
	}
	var paths [][]tailHop
	visited := map[callSite]bool{}
	var search func(site callSite, path []tailHop, depth int)
	search = func(site callSite, path []tailHop, depth int) {
		key := callSite{target: site.target, linkage: site.linkage, origin: site.origin}
		if depth > 4 || len(paths) > 1 || visited[key] {
			return
		}
		visited[key] = true
		fs, _ := named(site)
		for _, f := range fs {
			for _, s := range f.callSites() {
				if !s.tail {
					continue
				}
				p := append(append([]tailHop{}, path...), tailHop{f, s.ret})
				if gs, exact := named(s); exact && gs[0] == callee || !exact && s.target == callee.dwarfName && (s.linkage == "" || callee.LinkageName == "" || s.linkage == callee.LinkageName) {
					paths = append(paths, p)
				} else {
					search(s, p, depth+1)
				}
			}
		}
	}
	search(target, nil, 0)
	if len(paths) != 1 {
		return nil
	}
	return paths[0]
}
