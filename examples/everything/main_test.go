package everything_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/polymcp/polymcp/internal/wire"
)

// polymcpBin is the polymcp command, built once per test binary so the
// end-to-end tests speak to the real program over real pipes.
var polymcpBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "polymcp-everything-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	polymcpBin, err = wire.BuildCommand(dir)
	code := 1
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
