package symbols

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// LibraryList is a decoded qXfer:libraries-svr4 reply.
type LibraryList struct {
	// MainLM is the address of the main program's link_map (main-lm).
	MainLM    uint64
	Libraries []Library
}

// Library is one <library> element of a libraries-svr4 list.
type Library struct {
	Name  string // file name, as the dynamic linker recorded it
	LM    uint64 // address of its struct link_map
	LAddr uint64 // l_addr: load bias
	LD    uint64 // l_ld: runtime address of its dynamic section
	LMID  uint64 // link-map namespace (lmid), 0 if absent
}

type xmlLibraryList struct {
	XMLName   xml.Name `xml:"library-list-svr4"`
	Version   string   `xml:"version,attr"`
	MainLM    string   `xml:"main-lm,attr"`
	Libraries []struct {
		Name  string `xml:"name,attr"`
		LM    string `xml:"lm,attr"`
		LAddr string `xml:"l_addr,attr"`
		LD    string `xml:"l_ld,attr"`
		LMID  string `xml:"lmid,attr"`
	} `xml:"library"`
}

// ParseLibrariesSVR4 decodes the XML document that a stub returns for
// qXfer:libraries-svr4:read (after the caller has joined the transfer
// chunks):
//
//	<library-list-svr4 version="1.0" main-lm="0x7ffff7ffe2e0">
//	  <library name="/lib/x86_64-linux-gnu/libc.so.6" lm="0x7ffff7fc1000"
//	           l_addr="0x7ffff7d8a000" l_ld="0x7ffff7f9e8c0"/>
//	</library-list-svr4>
func ParseLibrariesSVR4(doc string) (*LibraryList, error) {
	var x xmlLibraryList
	if err := xml.NewDecoder(strings.NewReader(doc)).Decode(&x); err != nil {
		return nil, fmt.Errorf("libraries-svr4: %w: %w", ErrMalformed, err)
	}
	list := &LibraryList{}
	var err error
	if x.MainLM != "" {
		if list.MainLM, err = parseHexAttr("main-lm", x.MainLM); err != nil {
			return nil, err
		}
	}
	for _, l := range x.Libraries {
		lib := Library{Name: l.Name}
		for _, a := range []struct {
			name, val string
			dst       *uint64
		}{{"lm", l.LM, &lib.LM}, {"l_addr", l.LAddr, &lib.LAddr}, {"l_ld", l.LD, &lib.LD}, {"lmid", l.LMID, &lib.LMID}} {
			if a.val == "" {
				continue
			}
			if *a.dst, err = parseHexAttr(a.name, a.val); err != nil {
				return nil, fmt.Errorf("library %q: %w", l.Name, err)
			}
		}
		list.Libraries = append(list.Libraries, lib)
	}
	return list, nil
}

func parseHexAttr(name, v string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("libraries-svr4: %w: attribute %s=%q", ErrMalformed, name, v)
	}
	return n, nil
}

// Modules returns a Module (not yet opened) for each library with a file
// name, biased by l_addr. The main program is not in the list; add it
// with BiasFromEntry.
func (l *LibraryList) Modules() []Module {
	var mods []Module
	for _, lib := range l.Libraries {
		if lib.Name == "" {
			continue
		}
		mods = append(mods, Module{Path: lib.Name, Bias: lib.LAddr, LM: lib.LM, LD: lib.LD})
	}
	return mods
}
