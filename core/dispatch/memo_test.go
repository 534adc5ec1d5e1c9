package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

func TestMemo(t *testing.T) {
	var m memo[spec.Implementation]
	reads := 0
	read := func(raw []byte, v *spec.Implementation) error {
		reads++
		return readInfo(raw, v)
	}
	raw := []byte(`{"name":"a","version":"1"}`)
	a, err := m.get(raw, read)
	require.NoError(t, err)
	assert.Equal(t, spec.Implementation{Name: "a", Version: "1"}, *a)

	// The value points into the memo's copy, not into the request's bytes.
	copy(raw, `{"name":"b"`)
	assert.Equal(t, "a", a.Name)

	again, err := m.get([]byte(`{"name":"a","version":"1"}`), read)
	require.NoError(t, err)
	assert.Same(t, a, again, "the same bytes give the held value")
	assert.Equal(t, 1, reads)

	b, err := m.get([]byte(`{"name":"b","version":"2"}`), read)
	require.NoError(t, err)
	assert.Equal(t, spec.Implementation{Name: "b", Version: "2"}, *b)
	assert.Equal(t, spec.Implementation{Name: "a", Version: "1"}, *a, "a value given out never changes")

	_, err = m.get([]byte(`{"name":7}`), read)
	require.ErrorIs(t, err, errNotPlain)
	held, err := m.get([]byte(`{"name":"b","version":"2"}`), read)
	require.NoError(t, err)
	assert.Same(t, b, held, "a failed read holds nothing")
	assert.Equal(t, 3, reads)
}

// Requests of clients that take turns each get their own client's values.
func TestMemoConcurrent(t *testing.T) {
	var m memo[spec.ClientCapabilities]
	raws := [][]byte{[]byte(`{"sampling":{}}`), []byte(`{"roots":{"listChanged":true}}`), []byte(`{"elicitation":{}}`)}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				raw := raws[(g+i)%len(raws)]
				caps, err := m.get(raw, readCaps)
				switch {
				case err != nil:
					errs <- err
					return
				case (raw[2] == 's') != (caps.Sampling != nil), (raw[2] == 'r') != (caps.Roots != nil),
					(raw[2] == 'e') != (caps.Elicitation != nil):
					errs <- errors.New("capabilities of another client: " + string(raw))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Each 2026-07-28 request's handler sees the client and capabilities that
// request declared, while requests of three clients take turns through the
// one memo of the Runtime.
func TestModernRequestsSeeTheirOwnClient(t *testing.T) {
	f := newFixture(t, executor.Options{})
	require.NoError(t, f.router.AddTool(spec.Tool{Name: "whoami"},
		func(_ context.Context, req *router.Request, _ json.RawMessage) (*spec.CallToolResult, error) {
			return spec.TextResult(fmt.Sprintf("%s/%t", req.ClientInfo.Name, req.ClientCapabilities.Sampling != nil)), nil
		}))
	clients := []struct{ name, caps string }{{"a", `{}`}, {"b", `{"sampling":{}}`}, {"c", `{"roots":{}}`}}
	const rounds = 300
	var wg sync.WaitGroup
	for g, c := range clients {
		wg.Go(func() {
			s, in := f.session(transport.Info{Name: "t"})
			for i := range rounds {
				s.deliverString(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"whoami","arguments":{},`+
					`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,`+
					`"io.modelcontextprotocol/clientInfo":{"name":%q,"version":"1"}}}}`, i, c.caps, c.name), in)
				want := fmt.Sprintf(`%s/%t`, c.name, g == 1)
				if got, ok := in.wait(); !ok || !strings.Contains(got, `"text":"`+want+`"`) {
					t.Errorf("client %s got %q (answered: %t)", c.name, got, ok)
					return
				}
			}
		})
	}
	wg.Wait()
}

// The params members the decoder locates are the protocol's names.
func TestParamNames(t *testing.T) {
	assert.Equal(t, "_meta", jsonrpc.ParamNames[paramMeta])
	assert.Equal(t, "name", jsonrpc.ParamNames[paramName])
	assert.Equal(t, "arguments", jsonrpc.ParamNames[paramArguments])
	assert.Equal(t, spec.ParamRequestState, jsonrpc.ParamNames[paramRequestState])
	assert.Equal(t, spec.ParamInputResponses, jsonrpc.ParamNames[paramInputResponses])
}
