package symbols

import "errors"

// Errors returned (wrapped) by this package; test with errors.Is.
var (
	// ErrNoSymbol means no symbol covers an address or matches a name.
	ErrNoSymbol = errors.New("no symbol")
	// ErrNoDebugFile means neither the file nor a separate debug file
	// (build-id, .gnu_debuglink) holds DWARF.
	ErrNoDebugFile = errors.New("no debug info")
	// ErrNotInitialized means the dynamic linker has not filled in
	// r_debug yet (DT_DEBUG or r_map is 0), typically before ld.so ran.
	ErrNotInitialized = errors.New("dynamic linker state not initialized")
	// ErrMalformed means input (ELF contents, XML, auxv, maps text, target
	// memory) could not be decoded.
	ErrMalformed = errors.New("malformed input")
	// ErrNoModule means no module covers an address.
	ErrNoModule = errors.New("no module")
)
