package host

import (
	"context"

	"github.com/polymcp/polymcp/transport/stdio"
)

// Batch begins (begin) or ends a batch of the host's answers: over stdio,
// what is sent between the two goes out in one write when the last batch
// open ends.
func Batch(h uint64, begin bool) error {
	s, err := lookupServer(h)
	if err != nil {
		return err
	}
	if begin {
		s.batch.Begin()
	} else {
		s.batch.End()
	}
	return nil
}

// PumpStdio reads, on the calling thread, the input of the stdio transport
// started with "pump": a burst of what is ready is handled and answered.
// more says to call again at once (the burst ended with input left), else
// the host calls again when the input descriptor is readable. EClosed once
// that transport has ended: the host stops polling.
func PumpStdio(h uint64) (more bool, err error) {
	s, err := lookupServer(h)
	if err != nil {
		return false, err
	}
	p := s.pump.Load()
	if p == nil {
		return false, errorf(EInvalid, "server %#x does not serve stdio with \"pump\"", h)
	}
	switch p.Read() {
	case stdio.PumpEnded:
		return false, errorf(EClosed, "the stdio transport of server %#x has ended", h)
	case stdio.PumpMore:
		return true, nil
	}
	return false, nil
}

// ServeStdio serves one client over a pair of descriptors (stdin and
// stdout by default) in the background. The transport writes through a
// duplicate of the output descriptor, so a client that went away is an
// EPIPE error here, never a SIGPIPE that kills the host.
func ServeStdio(h uint64, options []byte) error {
	var cfg StdioConfig
	if err := decodeStrict(options, "stdio options", &cfg); err != nil {
		return err
	}
	in, out, err := cfg.fds()
	if err != nil {
		return err
	}
	if err := checkFDs(in, out); err != nil {
		return err
	}
	s, err := openServer(h)
	if err != nil {
		return err
	}
	opts := cfg.options(s.log)
	opts.Batch = &s.batch
	if cfg.Pump {
		opts.Pump = stdio.NewPump()
	}
	s.pump.Store(opts.Pump)
	return s.startTransport("stdio", func(ctx context.Context) error {
		return serveFD(ctx, s.srv, in, out, opts)
	})
}
