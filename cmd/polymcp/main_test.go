package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no command", nil, 2, "", "Usage:"},
		{"help", []string{"help"}, 0, "polymcp everything", ""},
		{"version", []string{"version"}, 0, "protocol revisions: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28", ""},
		{"unknown command", []string{"serve"}, 2, "", `unknown command "serve"`},
		{"stray argument", []string{"everything", "extra"}, 2, "", "unexpected argument extra"},
		{"unknown flag", []string{"everything", "--nope"}, 2, "", "flag provided but not defined"},
		{"help of everything", []string{"everything", "-h"}, 0, "--http HOST:PORT", ""},
		{"help of demo", []string{"demo", "--help"}, 0, "--server", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			assert.Equal(t, tc.code, run(context.Background(), tc.args, &out, &errOut))
			assert.Contains(t, out.String(), tc.stdout)
			assert.Contains(t, errOut.String(), tc.stderr)
		})
	}
}

// TestDemo builds the command and runs the demo end to end: the binary
// serves itself over stdio and the client half checks each answer.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "polymcp")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	out, err := exec.Command(bin, "demo").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, want := range []string{
		"polymcp-everything 0.1.0 speaks 2025-11-25",
		`← "hello, polymcp"`,
		"progress 200/200",
		`← "slept"`,
		`"This is the content of the static text resource."`,
		`"Prompt with arguments: arg1='hello', arg2='world'"`,
		"supportedVersions [2026-07-28]",
		`← "stateless hello"`,
		"the server exited with status 0",
	} {
		assert.Contains(t, string(out), want)
	}
}
