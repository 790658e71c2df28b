// Package symbols reads ELF symbol tables and tracks where the modules of a
// traced process are loaded.
//
// It is the ELF layer of rrmcp: [Open] or [NewFile] give a [File] that reads
// lazily (a 100 MB binary costs a few page faults to open; .symtab and
// .dynsym are decoded on the first lookup; section bytes are read on demand,
// without copying when the file is memory-mapped). On top of it:
//
//   - address → symbol+offset ([File.LookupAddr]) over .symtab, .dynsym and
//     synthesized PLT stubs (name@plt, found by decoding each PLT entry's
//     indirect jump and matching its GOT slot against .rela.plt/.rela.dyn,
//     the way objdump and GDB name them);
//   - name → symbols ([File.LookupName]) by raw, demangled, or qualified C++
//     name ("ns::Foo::bar", "Foo::bar", "bar", "Foo::bar(int)",
//     "ns::Box::get"), with ELF version suffixes (@GLIBC_2.2.5, @@…)
//     stripped before demangling; [Demangle] prints names as GDB, nm -C
//     and c++filt -i do (github.com/ianlancetaylor/demangle);
//   - separate debug files by build-id and .gnu_debuglink (with CRC check)
//     under configurable roots ([File.DebugFile], [File.DWARFFile],
//     [File.DWARF]);
//   - load bias of position-independent code ([BiasFromEntry]), auxv
//     ([ParseAuxv]), and the list of loaded modules from the target:
//     qXfer:libraries-svr4 XML ([ParseLibrariesSVR4]), r_debug/link_map
//     through DT_DEBUG ([ReadLinkMap], [LoadedModules]), or /proc/PID/maps
//     text ([ParseMaps], [ModulesFromMaps]);
//   - [AddressSpace], which maps a runtime pc to module, symbol and offset
//     across all modules, opening each one when first needed.
//
// The package never talks to a debug stub: target memory is read through a
// [ReadMemoryFunc] the caller supplies, so everything here can be tested on
// bytes.
//
// Addresses in [Symbol] are link-time addresses (as in the ELF file); add the
// [Module] bias to get runtime addresses. [AddressSpace] does that for you.
//
// Security: inputs (ELF files, XML, maps text, target memory) are treated as
// untrusted. Decoders bound their loops and never panic on malformed input
// (see the Fuzz tests), but a hostile ELF file can still make lookups slow or
// memory-hungry within those bounds.
package symbols
