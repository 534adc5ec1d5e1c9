package polymcp_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/polymcp/polymcp/"

// allowed lists, for each layer, the polymcp packages it may import
// directly (ARCHITECTURE.md §2): a lower layer never imports a higher one.
// A pattern ending in "/..." matches the package and everything below it.
var allowed = map[string][]string{
	"core/spec":        {},
	"core/jsonrpc":     {},
	"core/executor":    {},
	"core/schema":      {},
	"core/router/...":  {"core/jsonrpc", "core/schema", "core/spec", "core/router/..."},
	"core/protocol":    {"core/jsonrpc", "core/schema", "core/spec"},
	"transport":        {},
	"core/dispatch":    {"core/jsonrpc", "core/protocol", "core/router", "core/executor", "core/spec", "transport"},
	"transport/memory": {"transport"},
	"transport/stdio":  {"transport", "core/jsonrpc"},
	"transport/sse":    {"transport", "core/jsonrpc", "core/protocol", "core/spec"},
	"transport/streamhttp": {"transport", "transport/sse", "core/jsonrpc", "core/protocol", "core/spec",
		"core/dispatch"},
	"client":       {"core/jsonrpc", "core/schema", "core/spec", "transport"},
	"client/oauth": {},
	"mcp":          {"core/...", "transport/...", "client"},
	"internal/...": {"core/...", "transport/...", "client", "mcp", "examples/...", "internal/..."},
	// The runtime settings of the programs that own their process.
	"internal/gcdefault": {},
	"examples/...":       {"mcp", "core/spec", "core/jsonrpc", "examples/..."},
	"cmd/...":            {"mcp", "client/...", "core/jsonrpc", "core/spec", "transport/...", "examples/...", "internal/gcdefault"},
	"conformance/...":    {"client", "client/oauth", "core/spec", "core/jsonrpc", "transport", "transport/..."}, // the runner's client
	"capi/...":           {"mcp", "client/...", "core/...", "transport/...", "capi/...", "internal/gcdefault"},
	"":                   {"..."}, // tests at the root may import anything
}

// thirdParty lists the only non-standard imports of the lowest layers, which
// must stay small enough to audit.
var thirdParty = map[string][]string{
	"core/spec":     {},
	"core/executor": {},
	"core/jsonrpc":  {"github.com/bytedance/sonic", "golang.org/x/sys/cpu"},
	"transport":     {},
}

func matches(pattern, pkg string) bool {
	if p, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == p || strings.HasPrefix(pkg, p+"/")
	}
	return pattern == "..." || pattern == pkg
}

// layer returns the most specific entry of allowed that covers pkg.
func layer(pkg string) (string, bool) {
	best, found := "", false
	for l := range allowed {
		if matches(l, pkg) {
			if !found || len(l) > len(best) {
				best, found = l, true
			}
		}
	}
	return best, found
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), strings.TrimSuffix(module, "/"))
		l, ok := layer(pkg)
		if !assert.True(t, ok, "package %q belongs to no layer of the architecture", pkg) {
			continue
		}
		for _, imp := range fields[1:] {
			if inner, ok := strings.CutPrefix(imp, module); ok {
				assert.True(t, anyMatch(allowed[l], inner), "%s must not import %s (layer %q)", pkg, inner, l)
			} else if std := !strings.Contains(strings.SplitN(imp, "/", 2)[0], "."); !std {
				if allow, audited := thirdParty[pkg]; audited {
					assert.True(t, anyPrefix(allow, imp), "%s must not import %s", pkg, imp)
				}
			}
		}
	}
	require.NoError(t, sc.Err())
}

func anyMatch(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if matches(p, pkg) {
			return true
		}
	}
	return false
}

func anyPrefix(prefixes []string, imp string) bool {
	for _, p := range prefixes {
		if imp == p || strings.HasPrefix(imp, p+"/") {
			return true
		}
	}
	return false
}

func TestLayerTable(t *testing.T) {
	for _, tc := range []struct{ pkg, layer string }{
		{"core/router/cursor", "core/router/..."},
		{"transport/stdio", "transport/stdio"},
		{"transport", "transport"},
		{"examples/everything", "examples/..."},
		{"", ""},
	} {
		got, ok := layer(tc.pkg)
		assert.True(t, ok, tc.pkg)
		assert.Equal(t, tc.layer, got, tc.pkg)
	}
}
