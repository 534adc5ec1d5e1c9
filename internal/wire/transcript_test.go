package wire

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `A ping.
spec: basic/utilities/ping
-- session --
# comment
> {"jsonrpc":"2.0","id":1,"method":"ping"}

! schema: a known deviation
< {"jsonrpc":"2.0","id":1,"result":{}}
`

func TestParse(t *testing.T) {
	tr, err := Parse([]byte(sample))
	require.NoError(t, err)
	assert.Equal(t, "basic/utilities/ping", tr.Spec)
	require.Len(t, tr.Steps, 2)
	assert.Equal(t, Step{Line: 5, Send: true, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, tr.Steps[0])
	assert.Equal(t, 8, tr.Steps[1].Line)
	assert.False(t, tr.Steps[1].Send)
	assert.Equal(t, "a known deviation", tr.Steps[1].Deviation)
}

func TestParseRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ in, err string }{
		"no spec":              {"-- session --\n> {}\n", "must cite the spec section"},
		"no session":           {"spec: x\n-- other --\n> {}\n", `exactly one file, "session"`},
		"two files":            {"spec: x\n-- session --\n> {}\n-- more --\n", `exactly one file`},
		"empty session":        {"spec: x\n-- session --\n# nothing\n", "the session is empty"},
		"bad marker":           {"spec: x\n-- session --\n>{}\n", `line 3: a line must start with`},
		"expected is not JSON": {"spec: x\n-- session --\n< {\"a\":\n", "line 3: expected message is not JSON"},
		"duplicate key":        {"spec: x\n-- session --\n< {\"a\":1,\"a\":1}\n", `duplicate key "a"`},
		"deviation on a send":  {"spec: x\n-- session --\n! schema: r\n> {}\n", `line 4: "! schema:" must come right before`},
		"dangling deviation":   {"spec: x\n-- session --\n> {}\n! schema: r\n", `"! schema:" line ends the session`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"2025-06-18/b.txtar", "2024-11-05/a.txtar", "2025-06-18/a.txtar"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(sample), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2025-06-18", "notes.md"), []byte("ignored"), 0o644))
	trs, err := LoadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, tr := range trs {
		got = append(got, tr.Revision+"/"+tr.Name)
	}
	assert.Equal(t, []string{"2024-11-05/a", "2025-06-18/a", "2025-06-18/b"}, got)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "2025-06-18", "c.txtar"), []byte("-- session --\n"), 0o644))
	_, err = LoadDir(dir)
	assert.ErrorContains(t, err, "c.txtar")
}
