package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/polymcp/polymcp/bench/internal/proc"
)

const modulePath = "github.com/polymcp/polymcp/bench"

// Meta describes a suite run: when, where, with what settings.
type Meta struct {
	Report      string       `json:"report"`
	Started     string       `json:"started"`
	Finished    string       `json:"finished"`
	CPU         string       `json:"cpu"`
	Cores       int          `json:"cores"`
	Kernel      string       `json:"kernel"`
	Go          string       `json:"go"`
	ClockTicks  int          `json:"clock_ticks"`
	LoadBefore  string       `json:"loadavg_before"`
	LoadAfter   string       `json:"loadavg_after"`
	Concurrency []int        `json:"concurrency"`
	Payloads    []int        `json:"payloads"`
	Warmup      string       `json:"warmup"`
	Duration    string       `json:"duration"`
	Rounds      int          `json:"rounds"`
	Servers     []ServerMeta `json:"servers"`
	Notes       []string     `json:"notes,omitempty"`
}

// ServerMeta says what was run as a server.
type ServerMeta struct {
	Name      string `json:"name"`
	Transport string `json:"transport,omitempty"`
	Command   string `json:"command"`
	Version   string `json:"version,omitempty"`
	Skipped   string `json:"skipped,omitempty"`
}

// forKind returns a copy of m for one report, listing the servers in it
// (by name and transport) and those skipped.
func (m *Meta) forKind(kind string, in map[string]bool) *Meta {
	out := *m
	out.Report = kind
	out.Servers = nil
	for _, s := range m.Servers {
		if s.Skipped != "" || in[s.Name+" "+s.Transport] {
			out.Servers = append(out.Servers, s)
		}
	}
	return &out
}

func newMeta(sf *suiteFlags) *Meta {
	return &Meta{
		Started:     time.Now().UTC().Format(time.RFC3339),
		CPU:         cpuModel(),
		Cores:       runtime.NumCPU(),
		Kernel:      strings.TrimSpace(readFile("/proc/sys/kernel/osrelease")),
		Go:          runtime.Version(),
		ClockTicks:  proc.ClockTicks(),
		LoadBefore:  loadAvg(),
		Concurrency: sf.concurrency,
		Payloads:    sf.payloads,
		Warmup:      sf.warmup.String(),
		Duration:    sf.duration.String(),
		Rounds:      sf.rounds,
	}
}

func (m *Meta) note(format string, args ...any) {
	m.Notes = append(m.Notes, fmt.Sprintf(format, args...))
	fmt.Fprintln(os.Stderr, "note:", m.Notes[len(m.Notes)-1])
}

// chdirModuleRoot moves to bench/, where relative paths in flags start.
func chdirModuleRoot() error {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if !strings.HasPrefix(readFile(gomod), "module "+modulePath+"\n") {
		return errors.New("run the suite from polymcp's bench/ directory")
	}
	return os.Chdir(filepath.Dir(gomod))
}

// peerVersion returns the module and version a peer server is built with,
// as bench/go.mod requires it.
func peerVersion(name string) string {
	mod := map[string]string{
		"gosdk": "github.com/modelcontextprotocol/go-sdk",
		"mcpgo": "github.com/mark3labs/mcp-go",
		"floor": "github.com/bytedance/sonic",
	}[name]
	for line := range strings.Lines(readFile("go.mod")) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == mod {
			return mod + " " + f[1]
		}
	}
	return mod
}

// polymcpVersion describes the polymcp checkout bench/ lives in.
func polymcpVersion() string {
	out, err := exec.Command("git", "-C", "..", "describe", "--always", "--dirty").Output()
	if err != nil {
		return ""
	}
	return "polymcp " + strings.TrimSpace(string(out))
}

// loadAvg returns the 1, 5 and 15 minute load averages, to judge how busy
// the machine was with other work.
func loadAvg() string {
	f := strings.Fields(readFile("/proc/loadavg"))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	for line := range strings.Lines(readFile("/proc/cpuinfo")) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
