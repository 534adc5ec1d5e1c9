package wire

import (
	"bufio"
	"errors"
	"io"
	"os/exec"
	"regexp"
)

// servingURL is how a fixture announces where it listens: every polymcp
// fixture, and the official SDKs' servers of the interop tests, print it
// on stderr.
var servingURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/mcp`)

// StartHTTP runs argv with "--http 127.0.0.1:0" appended and returns the
// URL it prints on stderr once listening, and a stop that kills it and
// waits for it.
func StartHTTP(argv ...string) (url string, stop func(), err error) {
	cmd := exec.Command(argv[0], append(argv[1:], "--http", "127.0.0.1:0")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if u := servingURL.FindString(sc.Text()); u != "" {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return u, stop, nil
		}
	}
	stop()
	return "", nil, errors.New("wire: " + argv[0] + " printed no URL")
}
