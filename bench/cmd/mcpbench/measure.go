package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/polymcp/polymcp/bench/internal/httpc"
	"github.com/polymcp/polymcp/bench/internal/load"
	"github.com/polymcp/polymcp/bench/internal/proc"
	"github.com/polymcp/polymcp/bench/internal/report"
	"github.com/polymcp/polymcp/bench/internal/stdio"
)

// spec is one server under test: how to start it and how to reach it.
type spec struct {
	name      string
	transport string
	argv      []string
	reports   []string // the suite's reports it belongs to
}

// A dialer starts a server and connects a client transport to it.
type dialer func(argv []string) (*proc.Server, load.ClientTransport, error)

// dialers are the transports by the name specs and -extra use. "http" is
// the legacy session shape (initialize, then Mcp-Session-Id if the server
// mints one: stateful and stateless servers alike), "http-modern" the
// stateless 2026-07-28 shape.
var dialers = map[string]dialer{
	"stdio": func(argv []string) (*proc.Server, load.ClientTransport, error) {
		return stdio.Dial(argv)
	},
	"http": func(argv []string) (*proc.Server, load.ClientTransport, error) {
		return httpc.Dial(argv, httpc.Legacy)
	},
	"http-modern": func(argv []string) (*proc.Server, load.ClientTransport, error) {
		return httpc.Dial(argv, httpc.Modern)
	},
}

// transportNames lists the dialers' names, for messages.
func transportNames() string {
	names := make([]string, 0, len(dialers))
	for n := range dialers {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

const (
	handshakeTimeout = 10 * time.Second
	exitGrace        = 3 * time.Second
)

// measure starts a fresh server, so peak RSS belongs to this configuration
// alone, and loads it once.
func measure(s spec, lf *loadFlags, c config, round int) report.Result {
	res := report.Result{
		Server: s.name, Transport: s.transport,
		Concurrency: c.concurrency, Payload: c.payload, Round: round,
	}
	dial, ok := dialers[s.transport]
	if !ok {
		res.Failure = fmt.Sprintf("transport %q not implemented", s.transport)
		return res
	}
	srv, conn, err := dial(s.argv)
	if err != nil {
		res.Failure = "start: " + err.Error()
		return res
	}
	var info load.ServerInfo
	if h, ok := conn.(load.Handshaker); ok {
		info, err = h.Handshake(handshakeTimeout)
	} else {
		info, err = load.Handshake(conn, handshakeTimeout)
	}
	if err != nil {
		conn.Close()
		srv.Stop(exitGrace)
		res.Failure = withStderr(err, srv)
		return res
	}
	res.ServerInfo = strings.TrimSpace(info.Name + " " + info.Version)
	res.Protocol = info.ProtocolVersion
	if s, ok := conn.(interface{ Session() string }); ok {
		res.Session = s.Session() != ""
	}

	var before, after proc.Usage
	var sampleErr error
	cfg := load.Config{
		Concurrency: c.concurrency, Payload: c.payload,
		Warmup: lf.warmup, Duration: lf.duration,
		CallMeta: callMeta(conn),
		OnWindow: func(open bool) {
			u, err := srv.Sample()
			sampleErr = errors.Join(sampleErr, err)
			if open {
				before = u
			} else {
				after = u
			}
		},
	}
	stats, runErr := load.Run(conn, cfg)
	if r, ok := conn.(interface{ Replies() string }); ok {
		res.Replies = r.Replies()
	}
	srv.Stop(exitGrace) // its exit status says nothing about the load
	if stats != nil {
		fill(&res, stats, after.CPU-before.CPU, after.PeakRSS)
	}
	if err := errors.Join(runErr, sampleErr); err != nil {
		res.Failure = withStderr(err, srv)
	}
	return res
}

func callMeta(t load.ClientTransport) string {
	if m, ok := t.(load.CallMetaer); ok {
		return m.CallMeta()
	}
	return ""
}

func fill(res *report.Result, st *load.Stats, serverCPU time.Duration, peakRSS uint64) {
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	res.Calls, res.Sent = st.Calls, st.Sent
	res.Errors, res.ErrorSamples = st.Errors, st.ErrorSamples
	res.Seconds = st.Window.Seconds()
	res.PeakRSSMiB = float64(peakRSS) / (1 << 20)
	if res.Seconds > 0 {
		res.CallsPerSec = float64(st.Calls) / res.Seconds
	}
	res.P50us = us(st.Latency.Quantile(0.50))
	res.P99us = us(st.Latency.Quantile(0.99))
	res.P999us = us(st.Latency.Quantile(0.999))
	res.MaxUs = us(st.Latency.Max())
	if st.Calls > 0 {
		res.ServerCPUus = us(serverCPU) / float64(st.Calls)
		res.DriverCPUus = us(st.DriverCPU) / float64(st.Calls)
	}
}

// withStderr adds the last line the server wrote to stderr, if any.
func withStderr(err error, srv *proc.Server) string {
	msg := err.Error()
	if s := srv.Stderr(); s != "" {
		if i := strings.LastIndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		msg += " (server stderr: " + s + ")"
	}
	return msg
}
