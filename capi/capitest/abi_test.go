package capitest

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/mcp"
)

// TestCProgram runs each test of testdata/abi_test.c in its own process.
func TestCProgram(t *testing.T) {
	ready(t)
	out, err := exec.Command(abiTest, "--list").Output()
	require.NoError(t, err)
	names := strings.Fields(string(out))
	require.NotEmpty(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command(abiTest, name).CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Equal(t, "ok "+name+"\n", string(out))
		})
	}
}

func TestVersion(t *testing.T) {
	ready(t)
	out, err := exec.Command(abiTest, "--version").Output()
	require.NoError(t, err)
	assert.Equal(t, mcp.Version, strings.TrimSpace(string(out)), "polymcp_version() and mcp.Version")
}

// headerFunctions returns the functions polymcp.h declares.
func headerFunctions(t *testing.T) []string {
	src, err := os.ReadFile(root + "/capi/include/polymcp.h")
	require.NoError(t, err)
	decl := regexp.MustCompile(`(?m)^[a-z][a-z0-9_ ]*[ *](polymcp_[a-z0-9_]+)\(`)
	var names []string
	for _, m := range decl.FindAllSubmatch(src, -1) {
		names = append(names, string(m[1]))
	}
	slices.Sort(names)
	return names
}

// TestExportsMatchHeader: the library exports exactly the functions of
// polymcp.h (the version script hides the Go runtime and the pmcpgo_*
// glue), under SONAME libpolymcp.so.1.
func TestExportsMatchHeader(t *testing.T) {
	ready(t)
	f, err := elf.Open(filepath.Join(libDir, "libpolymcp.so"))
	require.NoError(t, err)
	defer f.Close()
	syms, err := f.DynamicSymbols()
	require.NoError(t, err)
	var exported []string
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) == elf.STB_GLOBAL && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			exported = append(exported, s.Name)
		}
	}
	slices.Sort(exported)
	header := headerFunctions(t)
	require.Len(t, header, 46, "the header's declarations as the regexp sees them")
	assert.Equal(t, header, exported)
	soname, err := f.DynString(elf.DT_SONAME)
	require.NoError(t, err)
	assert.Equal(t, []string{"libpolymcp.so.1"}, soname)
}

// TestGoExportsMatchHeader: every cgo //export is the Go half of one
// function of polymcp.h, and every function of the header that enters Go
// has one; the rest are answered in C alone.
func TestGoExportsMatchHeader(t *testing.T) {
	// Implemented in abi.c alone; polymcp_call_fail is polymcp_call_fail_data
	// without data.
	cOnly := []string{"polymcp_abi_version", "polymcp_call_fail", "polymcp_free", "polymcp_last_error", "polymcp_version"}
	files, err := filepath.Glob(root + "/capi/*.go")
	require.NoError(t, err)
	export := regexp.MustCompile(`(?m)^//export (pmcpgo_[a-z0-9_]+)$`)
	var fromGo []string
	for _, name := range files {
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		for _, m := range export.FindAllSubmatch(src, -1) {
			fromGo = append(fromGo, "polymcp_"+strings.TrimPrefix(string(m[1]), "pmcpgo_"))
		}
	}
	want := slices.DeleteFunc(headerFunctions(t), func(n string) bool { return slices.Contains(cOnly, n) })
	slices.Sort(fromGo)
	assert.Equal(t, want, fromGo)
}
