// Package report holds the benchmark's result records and renders them as
// JSON, a terminal table and a Markdown report.
package report

// Result is one measurement: one server, one concurrency, one payload size.
type Result struct {
	Server      string `json:"server"`
	Transport   string `json:"transport"`
	Concurrency int    `json:"concurrency"`
	Payload     int    `json:"payload_bytes"`
	Round       int    `json:"round,omitempty"`

	Calls       uint64  `json:"calls"`
	Seconds     float64 `json:"seconds"`
	CallsPerSec float64 `json:"calls_per_sec"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	P999us      float64 `json:"p999_us"`
	MaxUs       float64 `json:"max_us"`

	ServerCPUus float64 `json:"server_cpu_us_per_call"`
	DriverCPUus float64 `json:"driver_cpu_us_per_call"`
	PeakRSSMiB  float64 `json:"peak_rss_mib"`

	Sent         uint64   `json:"sent"`
	Errors       uint64   `json:"errors"`
	ErrorSamples []string `json:"error_samples,omitempty"`
	// Failure says why the measurement did not complete, if it did not.
	Failure string `json:"failure,omitempty"`
	// ServerInfo is the name and version the server gave in initialize.
	ServerInfo string `json:"server_info,omitempty"`
	// Protocol is the revision the session runs at.
	Protocol string `json:"protocol,omitempty"`
	// Session says whether the server minted an HTTP session (Mcp-Session-Id).
	Session bool `json:"http_session,omitempty"`
	// Replies is how an HTTP server answered the calls: json, sse or both.
	Replies string `json:"http_replies,omitempty"`
}

// OK reports whether the measurement completed without a single error.
func (r *Result) OK() bool { return r.Failure == "" && r.Errors == 0 }

// Key identifies a configuration, independent of server and round.
type Key struct {
	Concurrency, Payload int
}

// Key returns r's configuration.
func (r *Result) Key() Key { return Key{r.Concurrency, r.Payload} }

// Better reports whether a is the better of two rounds of one measurement:
// a clean run beats a failed one, then higher throughput wins.
func Better(a, b *Result) bool {
	if a.OK() != b.OK() {
		return a.OK()
	}
	return a.CallsPerSec > b.CallsPerSec
}
