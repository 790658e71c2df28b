package dwarf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// cfiTable holds an image's call-frame information, sorted for lookup.
type cfiTable struct {
	eh    frame.FrameDescriptionEntries // from .eh_frame (preferred)
	debug frame.FrameDescriptionEntries // from .debug_frame
	err   error

	// rules caches what rulesAt computed, by file address: a debugger
	// stops at the same few pcs again and again (breakpoints, the lines
	// of a loop), and running an FDE's program up to a pc is most of
	// unwinding one frame.
	mu    sync.Mutex
	rules map[uint64]frameRules
}

// frameRules is the unwinding rule set at one pc.
type frameRules struct {
	fc     *frame.FrameContext // in the Regs numbering (arch.frameContext); nil: no FDE
	signal bool                // the FDE is a signal trampoline's
	err    error
}

// maxCachedRules bounds cfiTable.rules; when full it starts again.
const maxCachedRules = 4096

// InSignalTrampoline reports whether file address pc is in a signal
// trampoline (its FDE's augmentation has "S": glibc's __restore_rt, the
// vDSO's __kernel_rt_sigreturn), where a signal handler returns to.
func (img *Image) InSignalTrampoline(pc uint64) bool {
	_, signal, _ := img.rulesAt(pc)
	return signal
}

// rulesAt returns the unwinding rules at file address pc: fc nil when no
// FDE covers pc. fc is shared: callers do not modify it.
func (img *Image) rulesAt(pc uint64) (fc *frame.FrameContext, signal bool, err error) {
	t := img.cfiFor()
	t.mu.Lock()
	r, ok := t.rules[pc]
	t.mu.Unlock()
	if !ok {
		if fde := t.fdeFor(pc); fde != nil {
			r.signal = isSignalFrame(fde)
			if r.fc, r.err = establish(fde, pc); r.err == nil {
				r.fc = img.arch.frameContext(r.fc)
			}
		}
		t.mu.Lock()
		if len(t.rules) >= maxCachedRules || t.rules == nil {
			t.rules = make(map[uint64]frameRules)
		}
		t.rules[pc] = r
		t.mu.Unlock()
	}
	return r.fc, r.signal, r.err
}

// cfiFor returns the CFI of the image, parsed on first use.
func (img *Image) cfiFor() *cfiTable {
	img.cfiOnce.Do(func() {
		t := &cfiTable{}
		if s := img.exe.Section(".eh_frame"); s != nil && s.Type != 8 /* SHT_NOBITS */ {
			if data := img.fileSection(img.exe, s); data != nil { // in place when memory-mapped
				t.eh, t.err = parseFDEs(data, s.Addr, img.arch.ptr())
			}
		}
		if data := img.section(".debug_frame"); data != nil {
			if fixed, ok := fixDebugFrameCIEs(data); ok {
				d, err := parseFDEs(fixed, 0, img.arch.ptr())
				if err == nil {
					t.debug = d
				} else if t.err == nil {
					t.err = err
				}
			}
		}
		img.cfi = t
	})
	return img.cfi
}

// parseFDEs parses .eh_frame (ehAddr != 0) or .debug_frame and sorts the
// entries, recovering from panics in the parser.
func parseFDEs(data []byte, ehAddr uint64, ptrSize int) (fdes frame.FrameDescriptionEntries, err error) {
	defer func() {
		if r := recover(); r != nil {
			fdes, err = nil, fmt.Errorf("parse call frame information: %v", r)
		}
	}()
	fdes, err = frame.Parse(data, binary.LittleEndian, 0, ptrSize, ehAddr)
	if err != nil {
		return nil, fmt.Errorf("parse call frame information: %w", err)
	}
	return frame.FrameDescriptionEntries(nil).Append(fdes), nil
}

// fdeFor returns the FDE covering the file address pc, from .eh_frame or
// else .debug_frame.
func (t *cfiTable) fdeFor(pc uint64) *frame.FrameDescriptionEntry {
	for _, fdes := range []frame.FrameDescriptionEntries{t.eh, t.debug} {
		if fde, err := fdes.FDEForPC(pc); err == nil {
			return fde
		}
	}
	return nil
}

// establish runs the FDE's program up to pc, recovering from panics.
func establish(fde *frame.FrameDescriptionEntry, pc uint64) (fc *frame.FrameContext, err error) {
	defer func() {
		if r := recover(); r != nil {
			fc, err = nil, fmt.Errorf("call frame program at %#x: %v", pc, r)
		}
	}()
	return fde.EstablishFrame(pc)
}

// isSignalFrame reports whether the FDE describes a signal trampoline
// (augmentation "S").
func isSignalFrame(fde *frame.FrameDescriptionEntry) bool {
	return fde != nil && fde.CIE != nil && strings.Contains(fde.CIE.Augmentation, "S")
}

// fixDebugFrameCIEs rewrites .debug_frame so that delve's parser reads
// it: CIEs of version 4 carry address_size and segment_selector_size
// bytes that the parser does not skip, so they are removed (making the
// CIE a version 3 one) and FDEs' CIE pointers are adjusted. 64-bit DWARF
// entries are not supported (ok false).
func fixDebugFrameCIEs(data []byte) ([]byte, bool) {
	out := make([]byte, 0, len(data))
	remap := map[uint32]uint32{}
	var fdePtrs []int // positions in out of FDE CIE pointers
	for off := 0; off+8 <= len(data); {
		length := int(binary.LittleEndian.Uint32(data[off:]))
		if length == 0xffffffff {
			return nil, false
		}
		if length < 4 || off+4+length > len(data) {
			break
		}
		body := data[off+4 : off+4+length]
		id := binary.LittleEndian.Uint32(body)
		newOff := len(out)
		if id == 0xffffffff && len(body) > 5 && body[4] == 4 {
			aug := 5
			for aug < len(body) && body[aug] != 0 {
				aug++
			}
			aug++ // NUL
			if aug+2 > len(body) {
				return nil, false
			}
			nb := append([]byte{}, body[:aug]...)
			nb[4] = 3
			nb = append(nb, body[aug+2:]...)
			out = binary.LittleEndian.AppendUint32(out, uint32(len(nb)))
			out = append(out, nb...)
		} else {
			out = binary.LittleEndian.AppendUint32(out, uint32(length))
			if id != 0xffffffff {
				fdePtrs = append(fdePtrs, len(out))
			}
			out = append(out, body...)
		}
		remap[uint32(off)] = uint32(newOff)
		off += 4 + length
	}
	for _, p := range fdePtrs {
		old := binary.LittleEndian.Uint32(out[p:])
		n, ok := remap[old]
		if !ok {
			return nil, false
		}
		binary.LittleEndian.PutUint32(out[p:], n)
	}
	return out, true
}

var errOutermost = errors.New("outermost frame")

// CFARule returns the rule of the canonical frame address at file address
// pc when it is a register plus an offset (the register in Regs'
// numbering); ok is false without CFI or for an expression rule.
func (img *Image) CFARule(pc uint64) (reg int, off int64, ok bool) {
	fc, _, err := img.rulesAt(pc)
	if fc == nil || err != nil || fc.CFA.Rule != frame.RuleCFA {
		return 0, 0, false
	}
	return int(fc.CFA.Reg), fc.CFA.Offset, true
}
