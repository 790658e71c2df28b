package dwarf

import (
	"debug/elf"
	"fmt"
	"sync"

	stddwarf "debug/dwarf"
)

// Image is one ELF file's debug information: its DWARF (possibly absent),
// its call-frame information and the ELF symbols needed to name pcs
// without DWARF. Addresses it takes and returns are file addresses.
type Image struct {
	Path string
	elf  *elf.File
	dw   *stddwarf.Data // nil when the file has no DWARF
	mu   sync.Mutex
}

// Open opens the ELF file at path and loads its debug information.
func Open(path string) (*Image, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open image: %w", err)
	}
	img, err := Load(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	img.Path = path
	return img, nil
}

// Load builds an Image from an already opened ELF file. The file must stay
// open while the Image is used.
func Load(f *elf.File) (*Image, error) {
	img := &Image{elf: f}
	return img, nil
}

// DWARF returns the stdlib DWARF data of the image, or nil if it has none.
func (img *Image) DWARF() *stddwarf.Data { return img.dw }

// ELF returns the underlying ELF file.
func (img *Image) ELF() *elf.File { return img.elf }
