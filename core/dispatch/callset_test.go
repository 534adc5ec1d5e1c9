package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/polymcp/polymcp/core/jsonrpc"
)

func TestCallSet(t *testing.T) {
	mk := func(id jsonrpc.ID) *call { return &call{id: id} }
	c1, c2, c3, c4 := mk(jsonrpc.IntID(1)), mk(jsonrpc.StringID("2")), mk(jsonrpc.IntID(3)), mk(jsonrpc.IntID(4))
	var cs callSet
	assert.True(t, cs.add(c1))
	assert.False(t, cs.add(mk(jsonrpc.IntID(1))), "a duplicate id in the field")
	assert.True(t, cs.add(c2))
	assert.True(t, cs.add(c3))
	assert.False(t, cs.add(mk(jsonrpc.StringID("2"))), "a duplicate id in the map")
	assert.True(t, cs.add(mk(jsonrpc.StringID("1"))), "string 1 is not integer 1")
	assert.Same(t, c1, cs.get(jsonrpc.IntID(1)))
	assert.Same(t, c2, cs.get(jsonrpc.StringID("2")))
	assert.Nil(t, cs.get(jsonrpc.IntID(2)))

	cs.remove(mk(jsonrpc.IntID(3))) // another call with the id: not this set's
	assert.Same(t, c3, cs.get(jsonrpc.IntID(3)))
	cs.remove(c1)
	assert.Nil(t, cs.get(jsonrpc.IntID(1)))
	assert.True(t, cs.add(c4), "the freed field takes the next call")
	cs.remove(c3)
	assert.Nil(t, cs.get(jsonrpc.IntID(3)))
	ids := map[string]bool{}
	for _, c := range cs.all() {
		ids[c.id.String()] = true
	}
	assert.Len(t, ids, 3)
	assert.True(t, ids[c2.id.String()] && ids[c4.id.String()])
}
