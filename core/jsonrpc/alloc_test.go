//go:build !race

// The race detector's instrumentation allocates (sonic's race build copies
// the value it encodes), so allocation counts are checked without it.

package jsonrpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MarshalResponse allocates the answer, and sonic its own copy of the
// value's interface, and nothing else: the scratch buffer is pooled and
// encoded into where it lies (a local copy of it escaped).
func TestMarshalResponseAllocatesOnlyTheAnswer(t *testing.T) {
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	v := &struct {
		Content []text `json:"content"`
	}{Content: []text{{"text", "hello"}}}
	_, err := MarshalResponse(IntID(1), v) // warm the pool and the encoder
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := MarshalResponse(IntID(1), v); err != nil {
			t.Fatal(err)
		}
	})
	assert.Equal(t, 2.0, allocs)
}
