package qemu

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// BuildKernel builds the multiboot test kernel from srcDir (the module's
// testprogs/kernel, which has the Makefile) into outDir and returns the
// path of kernel.elf. It needs only gcc and make.
func BuildKernel(ctx context.Context, srcDir, outDir string) (string, error) {
	out, err := exec.CommandContext(ctx, "make", "-s", "-C", srcDir, "OUT="+outDir).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build test kernel: %w: %s", err, out)
	}
	return filepath.Join(outDir, "kernel.elf"), nil
}
