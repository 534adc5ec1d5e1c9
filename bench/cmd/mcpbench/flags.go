package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// loadFlags are the flags shared by every subcommand that generates load.
type loadFlags struct {
	concurrency intList
	payloads    intList
	warmup      time.Duration
	duration    time.Duration
}

func (l *loadFlags) register(fs *flag.FlagSet, duration time.Duration) {
	l.concurrency = intList{1, 16, 64}
	l.payloads = intList{16, 65536}
	fs.Var(&l.concurrency, "c", "comma-separated `list` of requests kept in flight")
	fs.Var(&l.payloads, "payload", "comma-separated `list` of echo text sizes in bytes")
	fs.DurationVar(&l.warmup, "warmup", time.Second, "load before each measured window")
	fs.DurationVar(&l.duration, "duration", duration, "length of each measured window")
}

// configs lists the configurations, payload-major, in the order they run.
func (l *loadFlags) configs() []config {
	var out []config
	for _, p := range l.payloads {
		for _, c := range l.concurrency {
			out = append(out, config{concurrency: c, payload: p})
		}
	}
	return out
}

type config struct{ concurrency, payload int }

// intList is a flag.Value for a comma-separated list of positive integers.
type intList []int

func (l *intList) String() string {
	s := make([]string, len(*l))
	for i, n := range *l {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(v string) error {
	var out intList
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	*l = out
	return nil
}
