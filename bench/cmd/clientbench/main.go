// Command clientbench compares MCP clients: polymcp's (package client),
// go-sdk's and mcp-go's, each calling the echo tool of one stdio server
// (by default ../build/polymcp everything) from C goroutines at once.
//
//	go run ./cmd/clientbench [-c 16] [-payload 16] [-duration 3s] [-server "CMD ARGS"]
//
// Each client runs in a process of its own (this command, re-run with
// -one NAME), so that one client's garbage does not cost another; the
// client's CPU is that process's own (getrusage RUSAGE_SELF: the server
// is a child and not counted). It prints calls/s and client CPU µs per
// call, and the ratio of each to polymcp's.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type options struct {
	c        int
	payload  int
	warmup   time.Duration
	duration time.Duration
	server   []string
}

// result is one client's measurement, printed by -one as JSON.
type result struct {
	Client     string  `json:"client"`
	Calls      int64   `json:"calls"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpuSeconds"`
}

// caller makes one echo call; connect returns one and its closer.
type caller func(ctx context.Context, text string) (string, error)

var clients = map[string]func(ctx context.Context, server []string) (caller, func(), error){
	"polymcp": polymcpClient,
	"gosdk":   gosdkClient,
	"mcpgo":   mcpgoClient,
}

func main() {
	var o options
	one := flag.String("one", "", "measure only this client and print its result as JSON (used by the command itself)")
	names := flag.String("clients", "polymcp,gosdk,mcpgo", "clients to compare")
	server := flag.String("server", "../build/polymcp everything", "the stdio server's command line")
	flag.IntVar(&o.c, "c", 16, "calls in flight")
	flag.IntVar(&o.payload, "payload", 16, "bytes of echo text per call")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "calls before the measured window")
	flag.DurationVar(&o.duration, "duration", 3*time.Second, "the measured window")
	flag.Parse()
	o.server = strings.Fields(*server)
	if *one != "" {
		r, err := measure(*one, o)
		if err != nil {
			fmt.Fprintln(os.Stderr, "clientbench:", err)
			os.Exit(1)
		}
		_ = json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	if err := compare(strings.Split(*names, ","), o); err != nil {
		fmt.Fprintln(os.Stderr, "clientbench:", err)
		os.Exit(1)
	}
}

// compare runs each client in a child process and prints the table.
func compare(names []string, o options) error {
	var results []result
	for _, name := range names {
		args := []string{"-one", name, "-c", fmt.Sprint(o.c), "-payload", fmt.Sprint(o.payload),
			"-warmup", o.warmup.String(), "-duration", o.duration.String(), "-server", strings.Join(o.server, " ")}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results = append(results, r)
	}
	fmt.Printf("clients calling echo (%d B) over stdio of %q, C=%d, %s each\n\n", o.payload, strings.Join(o.server, " "), o.c, o.duration)
	fmt.Println("| client | calls/s | client CPU µs/call | calls/s ÷ polymcp | CPU ÷ polymcp |")
	fmt.Println("|---|--:|--:|--:|--:|")
	base := results[0]
	for _, r := range results {
		fmt.Printf("| %s | %.0f | %.2f | %.2f | %.2f |\n", r.Client, r.rate(), r.cpuPerCall(),
			r.rate()/base.rate(), r.cpuPerCall()/base.cpuPerCall())
	}
	return nil
}

func (r result) rate() float64       { return float64(r.Calls) / r.Seconds }
func (r result) cpuPerCall() float64 { return r.CPUSeconds * 1e6 / float64(r.Calls) }

// measure connects one client and keeps o.c calls in flight through the
// warmup and the measured window.
func measure(name string, o options) (result, error) {
	connect, ok := clients[name]
	if !ok {
		return result{}, fmt.Errorf("unknown client %q", name)
	}
	ctx := context.Background()
	call, closeFn, err := connect(ctx, o.server)
	if err != nil {
		return result{}, err
	}
	defer closeFn()
	text := strings.Repeat("x", o.payload)
	var calls atomic.Int64
	var counting atomic.Bool
	var failed atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range o.c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				got, err := call(ctx, text)
				if err == nil && got != text {
					err = fmt.Errorf("echo answered %d bytes, want %d", len(got), len(text))
				}
				if err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
				if counting.Load() {
					calls.Add(1)
				}
			}
		}()
	}
	time.Sleep(o.warmup)
	cpu0, start := cpuSeconds(), time.Now()
	counting.Store(true)
	time.Sleep(o.duration)
	counting.Store(false)
	elapsed, cpu := time.Since(start).Seconds(), cpuSeconds()-cpu0
	close(stop)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return result{}, err
	}
	return result{Client: name, Calls: calls.Load(), Seconds: elapsed, CPUSeconds: cpu}, nil
}

// cpuSeconds is this process's user and system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
