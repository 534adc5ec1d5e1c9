package streamhttp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testProgress = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
	testAnswer   = `{"jsonrpc":"2.0","id":1,"result":{}}`
)

// A writer makes its wake channel only when it first waits: whatever came
// between its last take and that wait must still wake it, and what comes
// after must too.
func TestReplyWakeup(t *testing.T) {
	tests := []struct {
		name string
		// before runs between take and the first wakeup, after once the
		// channel exists.
		before, after func(r *reply)
	}{
		{name: "message before the wait", before: func(r *reply) { require.NoError(t, r.Send([]byte(testProgress))) }},
		{name: "answer before the wait", before: func(r *reply) { require.NoError(t, r.Send([]byte(testAnswer))) }},
		{name: "abandon before the wait", before: func(r *reply) { r.Abandon() }},
		{name: "message after the wait", after: func(r *reply) { require.NoError(t, r.Send([]byte(testProgress))) }},
		{name: "abandon after the wait", after: func(r *reply) { r.Abandon() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &reply{maxEvents: 8, maxBytes: 1 << 10}
			msgs, final, _ := r.take()
			require.Empty(t, msgs)
			require.False(t, final)
			if tc.before != nil {
				tc.before(r)
			}
			wake := r.wakeup()
			if tc.after != nil {
				select {
				case <-wake:
					t.Fatal("woken before anything came")
				default:
				}
				tc.after(r)
			}
			select {
			case <-wake:
			default:
				t.Fatal("not woken")
			}
		})
	}
}

// The first message sent lives in the reply itself; once taken, later
// messages go elsewhere, so what the writer holds stays as it was.
func TestReplyFirstMessageKept(t *testing.T) {
	r := &reply{maxEvents: 8, maxBytes: 1 << 10}
	require.NoError(t, r.Send([]byte(testProgress)))
	taken, final, _ := r.take()
	require.Equal(t, []string{testProgress}, strs(taken))
	require.False(t, final)

	require.NoError(t, r.Send([]byte(testProgress)))
	require.NoError(t, r.Send([]byte(testAnswer)))
	assert.Equal(t, []string{testProgress}, strs(taken), "the first take was overwritten")
	rest, final, _ := r.take()
	assert.Equal(t, []string{testProgress, testAnswer}, strs(rest))
	assert.True(t, final)
}

func strs(msgs [][]byte) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m)
	}
	return out
}
