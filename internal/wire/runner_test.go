package wire

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scripted is a Conn whose server answers each sent line with the messages
// the script lists for it.
type scripted struct {
	script map[string][]string
	inbox  chan []byte
	sent   []string
}

func newScripted(script map[string][]string) *scripted {
	return &scripted{script: script, inbox: make(chan []byte, 64)}
}

func (s *scripted) Send(msg []byte) error {
	s.sent = append(s.sent, string(msg))
	out, ok := s.script[string(msg)]
	if !ok {
		return errors.New("no script for " + string(msg))
	}
	for _, m := range out {
		s.inbox <- []byte(m)
	}
	return nil
}

func (s *scripted) Recv(ctx context.Context) ([]byte, error) {
	select {
	case m := <-s.inbox:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

const (
	callA = `{"jsonrpc":"2.0","id":1,"method":"a"}`
	callB = `{"jsonrpc":"2.0","id":2,"method":"b"}`
	note1 = `{"jsonrpc":"2.0","method":"n","params":{"i":1}}`
	note2 = `{"jsonrpc":"2.0","method":"n","params":{"i":2}}`
	resA  = `{"jsonrpc":"2.0","id":1,"result":{}}`
	resB  = `{"jsonrpc":"2.0","id":2,"result":{"t":"x"}}`
)

func play(t *testing.T, session string, script map[string][]string) error {
	t.Helper()
	tr, err := Parse([]byte("spec: test\n-- session --\n" + session))
	require.NoError(t, err)
	tr.Path = "t.txtar"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return Play(ctx, newScripted(script), tr, nil)
}

// playCase is a session and the error its play must end with ("": none).
type playCase struct {
	name, session, err string
}

func checkPlays(t *testing.T, cases []playCase, script map[string][]string) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := play(t, tc.session, script)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

func TestPlay(t *testing.T) {
	// The server answers b before a, with the notifications in between.
	script := map[string][]string{callA: nil, callB: {note1, resB, note2, resA}}
	cases := []playCase{
		{"responses in any order, notifications in order",
			"> " + callA + "\n> " + callB + "\n< " + resA + "\n< " + note1 + "\n< " + note2 + "\n< " + resB + "\n", ""},
		{"placeholders", "> " + callA + "\n> " + callB + "\n< " + resA + "\n< " + note1 + "\n< " + note2 +
			"\n< " + `{"jsonrpc":"2.0","id":2,"result":{"t":"<string>"}}` + "\n", ""},
		{"notifications out of order",
			"> " + callA + "\n> " + callB + "\n< " + resA + "\n< " + note2 + "\n< " + note1 + "\n< " + resB + "\n",
			"t.txtar:5: unexpected message\n\tgot:  " + note1},
		{"an unexpected extra message",
			"> " + callA + "\n> " + callB + "\n< " + resA + "\n< " + note1 + "\n< " + resB + "\n",
			"t.txtar:5: unexpected message\n\tgot:  " + note2},
		{"a wrong answer names the first difference",
			"> " + callA + "\n> " + callB + "\n< " + note1 + "\n< " + `{"jsonrpc":"2.0","id":2,"result":{"t":"y"}}` + "\n",
			"first difference at $.result.t"},
	}
	checkPlays(t, cases, script)
}

func TestPlayWaitsBoundedly(t *testing.T) {
	old := GroupTimeout
	GroupTimeout = 50 * time.Millisecond // nothing will ever arrive
	t.Cleanup(func() { GroupTimeout = old })
	err := play(t, "> "+callA+"\n< "+resA+"\n", map[string][]string{callA: nil})
	assert.ErrorContains(t, err, "t.txtar:4: waiting for "+resA+": context deadline exceeded")
}

func TestPlaySendError(t *testing.T) {
	err := play(t, "> "+callB+"\n", map[string][]string{})
	assert.ErrorContains(t, err, "t.txtar:3: send: no script for")
}

// A captured value binds in the answer that carries it, is matched by
// later answers and stands for itself in later sends.
func TestPlayCaptures(t *testing.T) {
	create := `{"jsonrpc":"2.0","id":1,"method":"create"}`
	get := `{"jsonrpc":"2.0","id":2,"method":"get","params":{"id":"t\"1"}}`
	script := map[string][]string{
		create: {`{"jsonrpc":"2.0","id":1,"result":{"id":"t\"1"}}`},
		get:    {`{"jsonrpc":"2.0","id":2,"result":{"id":"t\"1","n":1}}`},
	}
	cases := []playCase{
		{"capture and recall",
			"> " + create + "\n< " + `{"jsonrpc":"2.0","id":1,"result":{"id":"<?task>"}}` +
				"\n> " + `{"jsonrpc":"2.0","id":2,"method":"get","params":{"id":"<=task>"}}` +
				"\n< " + `{"jsonrpc":"2.0","id":2,"result":{"id":"<=task>","n":1}}` + "\n", ""},
		{"a recalled value must match",
			"> " + create + "\n< " + `{"jsonrpc":"2.0","id":1,"result":{"id":"<?task>"}}` +
				"\n> " + get + "\n< " + `{"jsonrpc":"2.0","id":2,"result":{"id":"<=other>","n":1}}` + "\n",
			"first difference at $.result.id"},
		{"a send may only recall a captured name",
			"> " + `{"jsonrpc":"2.0","id":2,"method":"get","params":{"id":"<=task>"}}` + "\n",
			"t.txtar:3: send: <=task> names no captured value"},
	}
	checkPlays(t, cases, script)
}
