package executor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Extend moves a running job's deadline both ways: later (the sweep armed
// for the old one finds nothing and re-arms), earlier (the sweep is brought
// forward) and away (no deadline).
func TestExtend(t *testing.T) {
	for _, tc := range []struct {
		name      string
		timeout   time.Duration
		extend    time.Duration
		timesOut  bool
		deadlined bool
	}{
		{"later", 30 * time.Millisecond, time.Hour, false, true},
		{"earlier", time.Hour, 20 * time.Millisecond, true, true},
		{"none", 30 * time.Millisecond, 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newExecutor(t, Options{Timeout: tc.timeout})
			extended := make(chan bool, 1)
			release := make(chan struct{})
			ctx, _ := submit(t, e, func(ctx context.Context) {
				extended <- Extend(ctx, tc.extend)
				select {
				case <-release:
				case <-ctx.Done():
				}
			})
			require.True(t, <-extended)
			_, has := ctx.Deadline()
			assert.Equal(t, tc.deadlined, has)
			if tc.timesOut {
				assert.Eventually(t, func() bool { return ctx.Err() != nil }, waitTimeout, time.Millisecond)
				assert.ErrorIs(t, context.Cause(ctx), ErrTimeout)
			} else {
				time.Sleep(3 * tc.timeout)
				assert.NoError(t, ctx.Err(), "the old deadline no longer applies")
			}
			close(release)
		})
	}
}

func TestExtendRefusals(t *testing.T) {
	assert.False(t, Extend(context.Background(), time.Second), "not a job's context")
	e := newExecutor(t, Options{})
	ctx, _ := submit(t, e, func(context.Context) {})
	assert.Eventually(t, func() bool { return ctx.Err() != nil }, waitTimeout, time.Millisecond)
	assert.False(t, Extend(ctx, time.Second), "a finished job")
}
