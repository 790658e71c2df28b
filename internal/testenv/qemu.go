package testenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/qemu"
)

// NeedKernelRecording skips the test (fails it in CI) unless the test
// kernel can be built and recorded here: a qemu-system-i386 of version 10
// or later (QEMU), qemu-img, make and gcc.
func NeedKernelRecording(t testing.TB) {
	t.Helper()
	QEMU(t)
	NeedTool(t, "qemu-img")
	NeedTool(t, "make")
	NeedTool(t, "gcc")
}

// RecordKernel builds the test kernel (testprogs/kernel) into dir and
// records a run of it under QEMU into dir/rec; ctx bounds both. It returns
// the kernel's path and the recording.
func RecordKernel(ctx context.Context, dir string) (string, *qemu.Recording, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", nil, err
	}
	kernel, err := qemu.BuildKernel(ctx, filepath.Join(root, "testprogs", "kernel"), dir)
	if err != nil {
		return "", nil, err
	}
	rec, err := qemu.Record(ctx, filepath.Join(dir, "rec"), kernel)
	if err != nil {
		return "", nil, err
	}
	return kernel, rec, nil
}

// KernelRecording is NeedKernelRecording then RecordKernel into dir; an
// error fails the test.
func KernelRecording(t testing.TB, ctx context.Context, dir string) (string, *qemu.Recording) {
	t.Helper()
	NeedKernelRecording(t)
	kernel, rec, err := RecordKernel(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	return kernel, rec
}

// KernelLine returns the 1-based line of testprogs/kernel/kernel.c whose
// text contains marker: a test knows the line of a statement of the test
// kernel (a planted write) in advance.
func KernelLine(t testing.TB, marker string) int {
	t.Helper()
	return SourceLine(t, "kernel/kernel.c", marker)
}

// SourceLine returns the 1-based line of the file of testprogs (a path
// below it: "src/assert_fail.c") whose text contains marker.
func SourceLine(t testing.TB, file, marker string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(t), "testprogs", file))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", file, marker)
	return 0
}
