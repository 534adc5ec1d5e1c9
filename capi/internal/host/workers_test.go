package host

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A job never waits for another: 50 that block all start, and once they
// are done, later jobs run on the workers they leave.
func TestWorkersNeverQueue(t *testing.T) {
	const n = 50
	var started, done sync.WaitGroup
	release := make(chan struct{})
	started.Add(n)
	done.Add(n)
	for range n {
		workers.run(func() {
			started.Done()
			<-release
			done.Done()
		})
	}
	waitFor(t, "every job to start", func() bool {
		started.Wait()
		return true
	})
	close(release)
	done.Wait()
	before := runtime.NumGoroutine()
	var again sync.WaitGroup
	again.Add(n)
	for range n {
		workers.run(again.Done)
	}
	again.Wait()
	assert.Less(t, runtime.NumGoroutine(), before+n/2, "the waiting workers took the jobs")
}
