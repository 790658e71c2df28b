package session

import "github.com/rrmcp/rrmcp/internal/sources"

// The source file policy is package sources': a file is read only when
// the debug information of the program or of a loaded library names it,
// and only a regular file within sources.MaxSize.

// findSource maps a file name (full, or a tail of a full name) to a file
// named by the line tables of the program or of a loaded library; "" when
// none names it.
func (s *Session) findSource(file string) string {
	var files []string
	for _, img := range s.inf.Images() {
		files = append(files, img.Files()...)
	}
	return sources.Match(file, files)
}

// readSource returns the lines of a source file the debug information
// named (read once, through Config.SourceMap).
func (s *Session) readSource(path string) ([]string, error) {
	return s.src.Lines(path)
}
