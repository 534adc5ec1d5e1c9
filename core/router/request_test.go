package router

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/polymcp/polymcp/core/spec"
)

type fakeNotifier struct {
	progress []float64
	logs     []spec.LoggingLevel
	err      error
}

func (f *fakeNotifier) Progress(p float64, _ *float64, _ string) error {
	f.progress = append(f.progress, p)
	return f.err
}

func (f *fakeNotifier) Log(l spec.LoggingLevel, _ string, _ any) error {
	f.logs = append(f.logs, l)
	return f.err
}

func TestRequestNotifications(t *testing.T) {
	var nilReq *Request
	assert.NoError(t, nilReq.Progress(1, nil, ""))
	assert.NoError(t, nilReq.Log("info", "", nil))
	assert.NoError(t, (&Request{}).Progress(1, nil, ""))
	assert.NoError(t, (&Request{}).Log("info", "", nil))

	n := &fakeNotifier{}
	req := &Request{Notifier: n}
	assert.NoError(t, req.Progress(0.5, ptr(1.0), "half"))
	assert.NoError(t, req.Log("warning", "db", "slow"))
	assert.Equal(t, []float64{0.5}, n.progress)
	assert.Equal(t, []spec.LoggingLevel{"warning"}, n.logs)

	n.err = errors.New("refused")
	assert.EqualError(t, req.Progress(0.4, nil, ""), "refused", "the notifier's rules reach the handler")
}

func TestListString(t *testing.T) {
	assert.Equal(t, "tools", ListTools.String())
	assert.Equal(t, "resources", ListResources.String())
	assert.Equal(t, "prompts", ListPrompts.String())
	assert.Equal(t, "List(9)", List(9).String())
}
