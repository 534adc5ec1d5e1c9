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

// extra is a server given with -extra NAME=TRANSPORT:COMMAND ARGS...
type extra struct {
	name, transport string
	argv            []string
}

// extraList is a flag.Value collecting -extra servers.
type extraList []extra

func (l *extraList) String() string {
	s := make([]string, len(*l))
	for i, e := range *l {
		s[i] = e.name + "=" + e.transport + ":" + strings.Join(e.argv, " ")
	}
	return strings.Join(s, "; ")
}

func (l *extraList) Set(v string) error {
	name, rest, ok := strings.Cut(v, "=")
	transport, cmd, ok2 := strings.Cut(rest, ":")
	name, transport = strings.TrimSpace(name), strings.TrimSpace(transport)
	argv := strings.Fields(cmd)
	switch {
	case !ok || !ok2 || name == "" || len(argv) == 0:
		return fmt.Errorf("%q is not NAME=TRANSPORT:COMMAND ARGS...", v)
	case strings.ContainsAny(name, " ,"):
		return fmt.Errorf("server name %q has a space or a comma", name)
	case dialers[transport] == nil:
		return fmt.Errorf("unknown transport %q (one of %s)", transport, transportNames())
	}
	*l = append(*l, extra{name: name, transport: transport, argv: argv})
	return nil
}
