package inferior

import (
	"bytes"
	"debug/elf"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/symbols"
)

// vdsoCopy copies the vDSO among mods from target memory (ReadImage),
// once per process: where old read it at the same address, old's copy.
// It returns where the image was read, and nil where there is none.
func vdsoCopy(read symbols.ReadMemoryFunc, mods []symbols.Module, old *libs) (uint64, []byte) {
	for _, m := range mods {
		if !m.VDSO {
			continue
		}
		base := m.Start
		if base == 0 {
			base = m.Bias
		}
		if old != nil && old.vdso == base && old.as.VDSOImage != nil {
			return base, old.as.VDSOImage
		}
		b, err := symbols.ReadImage(read, base)
		if err != nil {
			return 0, nil
		}
		return base, b
	}
	return 0, nil
}

// vdsoImage returns the kernel's vDSO as an image for unwinding (its
// .eh_frame describes __kernel_vsyscall and the signal trampolines
// __kernel_sigreturn/__kernel_rt_sigreturn, through which every i386
// system call and signal handler frame passes), from the copy the library
// list holds (vdsoCopy); nil if there is none.
func (inf *Inferior) vdsoImage(l *libs, mod symbols.Module) *dwarf.Image {
	const key = "[vdso]"
	if img, ok := l.imgs[key]; ok {
		return img
	}
	l.imgs[key] = nil // one try
	buf := l.as.VDSOImage
	if buf == nil {
		return nil
	}
	ef, err := elf.NewFile(bytes.NewReader(buf))
	if err != nil {
		return nil
	}
	img, err := dwarf.LoadSplit(ef, nil)
	if err != nil {
		return nil
	}
	img.Path = mod.Path
	l.imgs[key] = img
	return img
}
