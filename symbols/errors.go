package symbols

import (
	"errors"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// Errors returned (wrapped) by this package; test with errors.Is. All but
// ErrNotInitialized match a kind of internal/errkind (ErrNoSymbol is a
// NotFound, ErrNoDebugFile a NoDebugInfo).
var (
	// ErrNoSymbol means no symbol covers an address or matches a name.
	ErrNoSymbol = errkind.New("no symbol", errkind.NotFound)
	// ErrNoDebugFile means neither the file nor a separate debug file
	// (build-id, .gnu_debuglink) holds DWARF.
	ErrNoDebugFile = errkind.New("no debug info", errkind.NoDebugInfo)
	// ErrNotInitialized means the dynamic linker has not filled in
	// r_debug yet (DT_DEBUG or r_map is 0), typically before ld.so ran.
	ErrNotInitialized = errors.New("dynamic linker state not initialized")
	// ErrMalformed means input (ELF contents, XML, auxv, maps text, target
	// memory) could not be decoded.
	ErrMalformed = errkind.Malformed
	// ErrNoModule means no module covers an address.
	ErrNoModule = errkind.New("no module", errkind.NotFound)
)
