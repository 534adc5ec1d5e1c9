package capitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// root is the module root, seen from this package's directory.
const root = "../.."

// Paths of what TestMain built.
var (
	libDir   string // holds libpolymcp.so, libpolymcp.so.1 and polymcp.h
	abiTest  string // the C test program
	example  string // examples/c/echo_server
	setupErr error  // why nothing could be built (no C compiler)
)

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "polymcp-capitest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	setupErr = setup(tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func setup(tmp string) error {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return fmt.Errorf("no C compiler: %w", err)
	}
	libDir = os.Getenv("POLYMCP_CAPI_BUILD")
	if libDir == "" {
		libDir = tmp
		if err := buildLibrary(tmp); err != nil {
			return err
		}
	}
	abiTest = filepath.Join(tmp, "abi_test")
	example = filepath.Join(tmp, "echo_server")
	for out, src := range map[string]string{abiTest: "testdata/abi_test.c", example: root + "/examples/c/echo_server.c"} {
		if err := compileC(cc, out, src); err != nil {
			return err
		}
	}
	return nil
}

// buildLibrary builds libpolymcp.so as mk/capi.mk does.
func buildLibrary(dir string) error {
	script, err := filepath.Abs(root + "/capi/polymcp.map")
	if err != nil {
		return err
	}
	lib := filepath.Join(dir, "libpolymcp.so")
	cmd := exec.Command("go", "build", "-trimpath", "-buildmode=c-shared",
		"-ldflags=-extldflags '-Wl,-soname,libpolymcp.so.1 -Wl,--version-script="+script+"'",
		"-o", lib, "github.com/polymcp/polymcp/capi")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build -buildmode=c-shared ./capi: %v\n%s", err, out)
	}
	header, err := os.ReadFile(root + "/capi/include/polymcp.h")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "polymcp.h"), header, 0o644); err != nil {
		return err
	}
	return os.Symlink("libpolymcp.so", filepath.Join(dir, "libpolymcp.so.1"))
}

func compileC(cc, out, src string) error {
	cmd := exec.Command(cc, "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-O2", "-Wall", "-Wextra", "-Werror",
		"-I"+libDir, "-o", out, src, "-L"+libDir, "-lpolymcp", "-lpthread", "-Wl,-rpath,"+libDir)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", cmd, err, b)
	}
	return nil
}

// ready skips or fails the test when TestMain could not build.
func ready(t *testing.T) {
	t.Helper()
	if setupErr != nil {
		if _, err := exec.LookPath("cc"); err != nil {
			t.Skip(setupErr)
		}
		t.Fatal(setupErr)
	}
}
