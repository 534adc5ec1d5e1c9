package load

import (
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Config sets one load run.
type Config struct {
	Concurrency int           // requests kept in flight
	Payload     int           // bytes of text in each echo call
	Warmup      time.Duration // load before the measured window
	Duration    time.Duration // the measured window
	Drain       time.Duration // wait for late answers after the window; 0 means 10s
	// CallMeta, if set, is the raw JSON of params._meta in every call (the
	// 2026-07-28 revision needs one); a transport that is a CallMetaer sets it.
	CallMeta string
	// OnWindow, if set, is called just before the measured window opens
	// (open is true) and just after it closes, to sample server counters.
	OnWindow func(open bool)
}

// Stats is what one run measured.
type Stats struct {
	Calls        uint64        // correct answers received inside the window
	Window       time.Duration // the window's real length
	Latency      Hist          // send→receive time of those answers
	Sent         uint64        // requests sent, in all phases
	Errors       uint64        // wrong, failed, stray or missing answers, in all phases
	ErrorSamples []string      // the first few errors
	DriverCPU    time.Duration // this process's CPU time over the window
}

const (
	ringSize    = 1 << 16
	maxInFlight = ringSize / 4
	maxSamples  = 5
)

const (
	warming int32 = iota
	measuring
	stopped
)

type run struct {
	t     ClientTransport
	cfg   Config
	tmpl  *callTemplate
	start time.Time

	ids    [ringSize]atomic.Uint64 // the request occupying each slot, 0 once answered
	sentAt [ringSize]atomic.Int64  // its send time, ns since start
	tokens chan struct{}           // one per request that may still be sent
	phase  atomic.Int32

	inflight   atomic.Int64
	writerDone atomic.Bool
	stop       chan struct{} // closed at the end of the window
	drained    chan struct{} // closed once nothing is in flight after the writer stopped
	drainOnce  sync.Once
	dead       chan struct{} // closed when the connection fails
	failOnce   sync.Once
	failErr    error
	closing    atomic.Bool

	stats Stats // owned by the reader until it exits
}

// Run loads t with echo calls as cfg says, then closes t. It returns the
// stats gathered so far along with an error if the connection failed.
func Run(t ClientTransport, cfg Config) (*Stats, error) {
	if cfg.Concurrency < 1 || cfg.Concurrency > maxInFlight {
		return nil, fmt.Errorf("concurrency %d outside 1..%d", cfg.Concurrency, maxInFlight)
	}
	if err := pretouch(); err != nil {
		return nil, err
	}
	if cfg.Drain <= 0 {
		cfg.Drain = 10 * time.Second
	}
	r := &run{
		t: t, cfg: cfg, tmpl: newCallTemplateMeta(cfg.Payload, cfg.CallMeta), start: time.Now(),
		tokens:  make(chan struct{}, cfg.Concurrency),
		stop:    make(chan struct{}),
		drained: make(chan struct{}),
		dead:    make(chan struct{}),
	}
	for range cfg.Concurrency {
		r.tokens <- struct{}{}
	}
	readerDone, writerDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(readerDone); r.read() }()
	go func() { defer close(writerDone); r.write() }()

	r.measure()
	close(r.stop)
	<-writerDone
	r.writerDone.Store(true)
	if r.inflight.Load() == 0 {
		r.drainOnce.Do(func() { close(r.drained) })
	}
	why := "when the connection failed"
	select {
	case <-r.drained:
	case <-r.dead:
	case <-time.After(cfg.Drain):
		why = fmt.Sprintf("%v after the window closed", cfg.Drain)
	}
	r.closing.Store(true)
	t.Close()
	<-readerDone
	if n := r.inflight.Load(); n > 0 {
		r.errorf("%d requests unanswered %s", n, why)
		r.stats.Errors += uint64(n) - 1
	}
	return &r.stats, r.failErr
}

// measure runs the warmup and the window, unless the connection fails first.
func (r *run) measure() {
	if !r.wait(r.cfg.Warmup) {
		return
	}
	if r.cfg.OnWindow != nil {
		r.cfg.OnWindow(true)
	}
	cpu0, t0 := selfCPU(), time.Now()
	r.phase.Store(measuring)
	r.wait(r.cfg.Duration)
	r.phase.Store(stopped)
	r.stats.Window, r.stats.DriverCPU = time.Since(t0), selfCPU()-cpu0
	if r.cfg.OnWindow != nil {
		r.cfg.OnWindow(false)
	}
}

// wait sleeps for d and reports whether the connection is still up.
func (r *run) wait(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.dead:
		return false
	}
}

func (r *run) now() int64 { return int64(time.Since(r.start)) }

func (r *run) fail(err error) {
	r.failOnce.Do(func() { r.failErr = err; close(r.dead) })
}

// write sends a request whenever a token is free, flushing before it waits.
func (r *run) write() {
	for id := uint64(idBase); ; id++ {
		select {
		case <-r.tokens:
		default:
			if err := r.t.Flush(); err != nil {
				r.fail(fmt.Errorf("flush: %w", err))
				return
			}
			select {
			case <-r.tokens:
			case <-r.stop:
				return
			case <-r.dead:
				return
			}
		}
		select {
		case <-r.stop:
			if err := r.t.Flush(); err != nil {
				r.fail(fmt.Errorf("flush: %w", err))
			}
			return
		default:
		}
		slot := id % ringSize
		r.ids[slot].Store(id)
		r.sentAt[slot].Store(r.now())
		r.inflight.Add(1)
		if err := r.t.Send(r.tmpl.patch(id)); err != nil {
			r.fail(fmt.Errorf("send: %w", err))
			return
		}
		r.stats.Sent++ // the reader never touches Sent
	}
}

// read matches answers to requests, checks them and frees their tokens.
func (r *run) read() {
	var m message
	for {
		frame, err := r.t.Recv()
		if err != nil {
			if !r.closing.Load() {
				r.fail(fmt.Errorf("receive: %w", err))
			}
			return
		}
		now := r.now()
		if err := decode(frame, &m); err != nil {
			r.errorf("undecodable message: %v: %.120q", err, frame)
			continue
		}
		if m.Method != "" {
			continue // a notification or a request from the server: not an answer
		}
		id, ok := m.numericID()
		slot := id % ringSize
		if !ok || id < idBase || !r.ids[slot].CompareAndSwap(id, 0) {
			r.errorf("answer to no request in flight: id %.40s", m.ID)
			continue
		}
		r.check(id, &m, time.Duration(now-r.sentAt[slot].Load()))
		r.tokens <- struct{}{}
		if r.inflight.Add(-1) == 0 && r.writerDone.Load() {
			r.drainOnce.Do(func() { close(r.drained) })
		}
	}
}

func (r *run) check(id uint64, m *message, latency time.Duration) {
	text, err := m.echoText()
	if err == nil && !r.tmpl.check(id, text) {
		err = fmt.Errorf("echoed %d bytes that differ from the %d sent", len(text), r.tmpl.size)
	}
	if err != nil {
		r.errorf("request %d: %v", id, err)
		return
	}
	if r.phase.Load() == measuring {
		r.stats.Latency.Record(latency)
		r.stats.Calls++
	}
}

func (r *run) errorf(format string, args ...any) {
	r.stats.Errors++
	if len(r.stats.ErrorSamples) < maxSamples {
		r.stats.ErrorSamples = append(r.stats.ErrorSamples, fmt.Sprintf(format, args...))
	}
}

// selfCPU returns the user+system CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
