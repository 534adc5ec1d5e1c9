package stdio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"syscall"
	"testing"
)

// childEnv switches the test binary into a child process for the tests
// that need real descriptors 0 and 1 (see runChild).
const childEnv = "POLYMCP_STDIO_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// Exit codes of a child.
const (
	childServeFailed = 3
	childBadMode     = 4
)

// runChild is the child's main. Modes:
//
//   - "serve": ServeProcess of a fake server with MaxLineBytes 64, logging
//     to stderr; exit 0 when Serve returns nil, else the error on stderr
//     and childServeFailed;
//   - "stdout": the control for "serve": read one byte, then write to
//     os.Stdout the way a careless transport would;
//   - "print": "serve", then "served" printed to os.Stdout once Serve has
//     returned.
func runChild(mode string) int {
	switch mode {
	case "serve", "print":
		logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
		err := ServeProcess(context.Background(), newFakeServer(), &Options{MaxLineBytes: 64, Logger: logger})
		if err != nil {
			fmt.Fprintf(os.Stderr, "serve: %v (EPIPE: %t)\n", err, errors.Is(err, syscall.EPIPE))
			return childServeFailed
		}
		if mode == "print" {
			fmt.Println("served")
		}
		return 0
	case "stdout":
		_, _ = os.Stdin.Read(make([]byte, 1))
		for range 10 {
			_, _ = os.Stdout.WriteString("{}\n")
		}
		return 0
	}
	if f, ok := childModes[mode]; ok {
		return f()
	}
	return childBadMode
}

// childModes are the modes of runChild that only some platforms build.
var childModes = map[string]func() int{}
