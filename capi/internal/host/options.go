package host

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/polymcp/polymcp/internal/gcdefault"
	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/stdio"
)

// ServerConfig is the options JSON of polymcp_server_new. Every field is
// optional; zero means the documented default.
type ServerConfig struct {
	Name             string   `json:"name"`    // default "polymcp-server"
	Version          string   `json:"version"` // default "0.0.0"
	Title            string   `json:"title"`
	Instructions     string   `json:"instructions"`
	Revisions        []string `json:"revisions"`          // default: all
	MaxConcurrency   int      `json:"max_concurrency"`    // default 32
	MaxQueue         int      `json:"max_queue"`          // default 256; -1: none
	RequestTimeoutMs int64    `json:"request_timeout_ms"` // default 30000; -1: none
	PageSize         int      `json:"page_size"`          // default 100
	// The tasks extension (2026-07-28): see polymcp.h.
	TaskTTLMs          int64 `json:"task_ttl_ms"`           // default 3600000
	MaxTasks           int   `json:"max_tasks"`             // default 1000
	MaxRunningTasks    int   `json:"max_running_tasks"`     // default max_concurrency/2
	TaskPollIntervalMs int64 `json:"task_poll_interval_ms"` // default 1000
	// HTTP configures host-owned HTTP (polymcp_server_http); its addr is unused.
	HTTP *HTTPConfig `json:"http"`
}

// StdioConfig is the options JSON of polymcp_server_serve_stdio.
type StdioConfig struct {
	InFD           *int  `json:"in_fd"`  // default 0
	OutFD          *int  `json:"out_fd"` // default 1
	MaxLineBytes   int   `json:"max_line_bytes"`
	WriteTimeoutMs int64 `json:"write_timeout_ms"`
	// Pump has the host read: polymcp_server_stdio_pump (ABI 1.6).
	Pump bool `json:"pump"`
	// StdoutToStderr points fd 1 at stderr while serving out_fd 1 (ABI 1.7).
	StdoutToStderr bool `json:"stdout_to_stderr"`
}

// ProcessConfig is the JSON of polymcp_configure.
type ProcessConfig struct {
	MaxProcs    *int    `json:"max_procs"`          // GOMAXPROCS; 0 leaves it as it is
	LogLevel    *string `json:"log_level"`          // "debug", "info", "warn" (default), "error"
	GCPercent   *int    `json:"gc_percent"`         // Go's GOGC; -1 turns the collector off
	MemoryLimit *int64  `json:"memory_limit_bytes"` // Go's GOMEMLIMIT, a soft limit
}

// The library's Go runtime collects at gcdefault.Percent unless GOGC is
// set (see gcdefault for why and what it measured).
func init() { gcdefault.ApplyScaled() }

// decodeStrict decodes an options object, refusing unknown members so a
// misspelt option fails instead of silently meaning the default. Options
// are read once per server, so encoding/json (which can refuse unknown
// fields) costs nothing that matters here.
func decodeStrict(raw []byte, what string, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(EInvalid, "%s: %v", what, err)
	}
	if dec.More() {
		return errorf(EInvalid, "%s: trailing data after the JSON object", what)
	}
	return nil
}

func (c *ServerConfig) serverOptions(logger *slog.Logger) *mcp.ServerOptions {
	timeout := time.Duration(c.RequestTimeoutMs) * time.Millisecond
	if c.RequestTimeoutMs < 0 {
		timeout = -1
	}
	return &mcp.ServerOptions{Instructions: c.Instructions, Revisions: c.Revisions,
		MaxConcurrency: c.MaxConcurrency, MaxQueue: c.MaxQueue, RequestTimeout: timeout,
		PageSize: c.PageSize, Logger: logger, TaskTTL: time.Duration(c.TaskTTLMs) * time.Millisecond,
		MaxTasks: c.MaxTasks, MaxRunningTasks: c.MaxRunningTasks,
		TaskPollInterval: time.Duration(c.TaskPollIntervalMs) * time.Millisecond}
}

func (c *ServerConfig) check() error {
	switch {
	case c.MaxConcurrency < 0:
		return errorf(EInvalid, "options: max_concurrency must not be negative")
	case c.MaxQueue < -1:
		return errorf(EInvalid, "options: max_queue must be -1 (no queue), 0 (default) or positive")
	case c.RequestTimeoutMs < -1:
		return errorf(EInvalid, "options: request_timeout_ms must be -1 (none), 0 (default) or positive")
	case c.PageSize < 0:
		return errorf(EInvalid, "options: page_size must not be negative")
	case c.TaskTTLMs < 0 || c.MaxTasks < 0 || c.MaxRunningTasks < 0 || c.TaskPollIntervalMs < 0:
		return errorf(EInvalid, "options: task_ttl_ms, max_tasks, max_running_tasks and task_poll_interval_ms must not be negative")
	}
	return nil
}

func (c *StdioConfig) fds() (int, int, error) {
	in, out := 0, 1
	if c.InFD != nil {
		in = *c.InFD
	}
	if c.OutFD != nil {
		out = *c.OutFD
	}
	if in < 0 || out < 0 {
		return 0, 0, errorf(EInvalid, "stdio options: descriptors must not be negative")
	}
	return in, out, nil
}

func (c *StdioConfig) options(logger *slog.Logger) *stdio.Options {
	return &stdio.Options{MaxLineBytes: c.MaxLineBytes,
		WriteTimeout: time.Duration(c.WriteTimeoutMs) * time.Millisecond, Logger: logger,
		StdoutToStderr: c.StdoutToStderr}
}

// logLevel is the process-wide threshold of on_log (polymcp_configure).
var logLevel atomic.Int64

func init() { logLevel.Store(int64(slog.LevelWarn)) }

var levelNames = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo,
	"warn": slog.LevelWarn, "error": slog.LevelError}

// Configure applies polymcp_configure's JSON.
func Configure(raw []byte) error {
	var c ProcessConfig
	if err := decodeStrict(raw, "configure", &c); err != nil {
		return err
	}
	var level slog.Level
	if c.LogLevel != nil {
		l, ok := levelNames[*c.LogLevel]
		if !ok {
			return errorf(EInvalid, "configure: log_level %q is not debug, info, warn or error", *c.LogLevel)
		}
		level = l
	}
	if c.MaxProcs != nil && *c.MaxProcs < 0 {
		return errorf(EInvalid, "configure: max_procs must not be negative")
	}
	if c.GCPercent != nil && (*c.GCPercent < -1 || *c.GCPercent == 0) {
		return errorf(EInvalid, "configure: gc_percent must be positive, or -1 for off")
	}
	if c.MemoryLimit != nil && *c.MemoryLimit <= 0 {
		return errorf(EInvalid, "configure: memory_limit_bytes must be positive")
	}
	if c.LogLevel != nil {
		logLevel.Store(int64(level))
	}
	if c.MaxProcs != nil && *c.MaxProcs > 0 {
		runtime.GOMAXPROCS(*c.MaxProcs)
	}
	if c.GCPercent != nil {
		gcdefault.Set(*c.GCPercent)
	}
	if c.MemoryLimit != nil {
		debug.SetMemoryLimit(*c.MemoryLimit)
	}
	return nil
}
