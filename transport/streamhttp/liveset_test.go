package streamhttp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/polymcp/polymcp/transport"
)

// fakeSession is a transport.Session that only records that it was closed.
type fakeSession struct{ closed bool }

func (*fakeSession) Deliver(context.Context, []byte, transport.Sink) {}
func (f *fakeSession) Close()                                        { f.closed = true }

func TestLiveSet(t *testing.T) {
	var l liveSet
	a, b, c := &fakeSession{}, &fakeSession{}, &fakeSession{}
	sa, sb := l.add(a), l.add(b)
	assert.NotEqual(t, sa, sb)
	assert.ElementsMatch(t, []transport.Session{a, b}, l.all())

	l.remove(sa)
	assert.Equal(t, []transport.Session{b}, l.all())
	assert.Equal(t, sa, l.add(c), "a freed slot is reused")
	assert.ElementsMatch(t, []transport.Session{b, c}, l.all())
	assert.Len(t, l.sessions.items, 2, "no slot is added while one is free")

	l.closeAll()
	assert.True(t, b.closed && c.closed)
	assert.False(t, a.closed, "a removed session is not closed")
}
