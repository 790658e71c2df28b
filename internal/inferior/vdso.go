package inferior

import (
	"bytes"
	"context"
	"debug/elf"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/symbols"
)

// vdsoImage returns the kernel's vDSO as an image for unwinding (its
// .eh_frame describes __kernel_vsyscall and the signal trampolines
// __kernel_sigreturn/__kernel_rt_sigreturn, through which every i386
// system call and signal handler frame passes), copied once from target
// memory; nil if it cannot be read.
func (inf *Inferior) vdsoImage(ctx context.Context, l *libs, mod symbols.Module) *dwarf.Image {
	const key = "[vdso]"
	if img, ok := l.imgs[key]; ok {
		return img
	}
	l.imgs[key] = nil // one try
	base := mod.Start
	if base == 0 {
		base = mod.Bias
	}
	buf, err := symbols.ReadImage(func(a uint64, p []byte) (int, error) { return inf.c.ReadMemory(ctx, a, p) }, base)
	if err != nil {
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
