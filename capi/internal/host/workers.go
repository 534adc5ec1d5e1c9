package host

import "time"

// workers run the client half's requests on goroutines that outlive them.
// A request's call chain (the client's round trip, the JSON encoder) grew
// each new goroutine's stack two or three times: copying stacks was a fifth
// of a binding's client CPU for a small call (perf, the Node client over
// stdio). A worker keeps its grown stack for the next request.
var workers = workerPool{jobs: make(chan func())}

// workerIdle is how long a worker waits for another request before it
// ends, so that an idle process keeps none.
const workerIdle = 10 * time.Second

type workerPool struct {
	jobs chan func() // unbuffered: a job goes only to a worker waiting for one
}

// run starts job on a waiting worker, or on a new one: it never queues.
func (p *workerPool) run(job func()) {
	select {
	case p.jobs <- job:
	default:
		go p.work(job)
	}
}

func (p *workerPool) work(job func()) {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		job()
		idle.Reset(workerIdle)
		select {
		case job = <-p.jobs:
		case <-idle.C:
			return
		}
	}
}
