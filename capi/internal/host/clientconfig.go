package host

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// ClientConfig is the options JSON of polymcp_client_connect. Exactly one of
// Command, URL and Server names the server; everything else is optional,
// zero meaning the client package's default.
type ClientConfig struct {
	Command []string          `json:"command"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Server  uint64            `json:"server"`
	OAuth   *OAuthConfig      `json:"oauth"`

	ClientInfo             *spec.Implementation `json:"client_info"`
	Revision               string               `json:"revision"`
	TimeoutMs              int64                `json:"timeout_ms"`
	ResetTimeoutOnProgress bool                 `json:"reset_timeout_on_progress"`
	ProbeTimeoutMs         int64                `json:"probe_timeout_ms"`
	MaxPages               int                  `json:"max_pages"`
	MaxInputRounds         int                  `json:"max_input_rounds"`
	MaxQuestions           int                  `json:"max_questions"`
	Tasks                  bool                 `json:"tasks"`
	SkipOutputValidation   bool                 `json:"skip_output_validation"`
	Sampling               bool                 `json:"sampling"`
	Elicitation            bool                 `json:"elicitation"`
	Roots                  bool                 `json:"roots"`
	// Capabilities are declared as they are over what the three above
	// imply; declaring sampling, elicitation or roots here sets it too.
	Capabilities *spec.ClientCapabilities `json:"capabilities"`
}

// answered turns on the questions the declared capabilities need.
func (c *ClientConfig) answered() {
	if d := c.Capabilities; d != nil {
		c.Sampling = c.Sampling || len(d.Sampling) > 0
		c.Elicitation = c.Elicitation || len(d.Elicitation) > 0
		c.Roots = c.Roots || len(d.Roots) > 0
	}
}

func (c *ClientConfig) check(answers bool) error {
	targets := 0
	for _, set := range []bool{len(c.Command) > 0, c.URL != "", c.Server != 0} {
		if set {
			targets++
		}
	}
	switch {
	case targets != 1:
		return errorf(EInvalid, "options: exactly one of command, url and server names the server")
	case len(c.Command) > 0 && c.Command[0] == "":
		return errorf(EInvalid, "options: command[0] is empty")
	case (len(c.Env) > 0 || c.Cwd != "") && len(c.Command) == 0:
		return errorf(EInvalid, "options: env and cwd are for a command")
	case (len(c.Headers) > 0 || c.OAuth != nil) && c.URL == "":
		return errorf(EInvalid, "options: headers and oauth are for a url")
	case c.Revision != "" && !slices.Contains(spec.Revisions, c.Revision):
		return errorf(EInvalid, "options: revision %q is not one of %v", c.Revision, spec.Revisions)
	case c.TimeoutMs < 0 || c.ProbeTimeoutMs < 0 || c.MaxPages < 0 || c.MaxInputRounds < 0 || c.MaxQuestions < 0:
		return errorf(EInvalid, "options: timeouts and limits must not be negative")
	case (c.Sampling || c.Elicitation || c.Roots) && !answers:
		return errorf(EInvalid, "options: sampling, elicitation and roots need the on_question callback")
	case c.OAuth != nil:
		return c.OAuth.check(answers)
	}
	return nil
}

// clientOptions are the client.Options of c's config, its questions and
// notifications going to the host.
func (cfg *ClientConfig) clientOptions(c *Client) *client.Options {
	o := &client.Options{Revision: cfg.Revision, Timeout: millis(cfg.TimeoutMs),
		ResetTimeoutOnProgress: cfg.ResetTimeoutOnProgress, ProbeTimeout: millis(cfg.ProbeTimeoutMs),
		MaxPages: cfg.MaxPages, MaxInputRounds: cfg.MaxInputRounds, MaxQuestions: cfg.MaxQuestions,
		Tasks: cfg.Tasks, SkipOutputValidation: cfg.SkipOutputValidation,
		OnLog:            func(p spec.LoggingMessageParams) { c.notifyJSON("notifications/message", p) },
		OnToolsChanged:   func() { c.notify("notifications/tools/list_changed", []byte("{}")) },
		OnPromptsChanged: func() { c.notify("notifications/prompts/list_changed", []byte("{}")) },
		OnResourcesChanged: func() {
			c.notify("notifications/resources/list_changed", []byte("{}"))
		},
		OnResourceUpdated: func(uri string) {
			c.notifyJSON("notifications/resources/updated", spec.ResourceUpdatedParams{URI: uri})
		}}
	if cfg.ClientInfo != nil {
		o.Info = *cfg.ClientInfo
	}
	if cfg.Capabilities != nil {
		o.Capabilities = *cfg.Capabilities
	}
	if cfg.Sampling {
		o.Sampling = func(ctx context.Context, p *spec.CreateMessageParams) (*spec.CreateMessageResult, error) {
			return ask[spec.CreateMessageResult](ctx, c, "sampling/createMessage", p)
		}
	}
	if cfg.Elicitation {
		o.Elicitation = func(ctx context.Context, p *spec.ElicitParams) (*spec.ElicitResult, error) {
			return ask[spec.ElicitResult](ctx, c, "elicitation/create", p)
		}
	}
	if cfg.Roots {
		o.Roots = func(ctx context.Context) ([]spec.Root, error) {
			r, err := ask[spec.ListRootsResult](ctx, c, "roots/list", struct{}{})
			if err != nil {
				return nil, err
			}
			return r.Roots, nil
		}
	}
	return o
}

func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// dial connects c to the server the config names.
func (cfg *ClientConfig) dial(ctx context.Context, c *Client, o *client.Options) (*client.Client, error) {
	switch {
	case len(cfg.Command) > 0:
		cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
		cmd.Dir, cmd.Stderr = cfg.Cwd, os.Stderr
		if len(cfg.Env) > 0 {
			cmd.Env = os.Environ()
			for k, v := range cfg.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		return mcp.ConnectCommand(ctx, cmd, o)
	case cfg.URL != "":
		ho := &streamhttp.ClientOptions{Header: http.Header{}}
		for k, v := range cfg.Headers {
			ho.Header.Set(k, v)
		}
		if cfg.OAuth != nil {
			tr, err := c.oauthTransport(cfg.OAuth)
			if err != nil {
				return nil, err
			}
			ho.HTTPClient = &http.Client{Transport: tr}
		}
		return mcp.ConnectHTTP(ctx, cfg.URL, o, ho)
	}
	s, err := openServer(cfg.Server)
	if err != nil {
		return nil, err
	}
	return s.srv.ConnectClient(ctx, o)
}

// RequestConfig is the options JSON of polymcp_client_request.
type RequestConfig struct {
	TimeoutMs int64           `json:"timeout_ms"`
	Progress  bool            `json:"progress"`
	Meta      json.RawMessage `json:"meta"`
}

func (o *RequestConfig) check() error {
	if o.TimeoutMs < 0 {
		return errorf(EInvalid, "request options: timeout_ms must not be negative")
	}
	if len(o.Meta) > 0 && o.Meta[0] != '{' {
		return errorf(EInvalid, "request options: meta must be a JSON object")
	}
	return nil
}

// callOptions are the client.CallOptions of the request of tag.
func (o *RequestConfig) callOptions(c *Client, tag uint64, r *request) []client.CallOption {
	var opts []client.CallOption
	if o.TimeoutMs > 0 {
		opts = append(opts, client.WithTimeout(millis(o.TimeoutMs)))
	}
	if len(o.Meta) > 0 {
		var members map[string]json.RawMessage
		if json.Unmarshal(o.Meta, &members) == nil {
			opts = append(opts, client.WithMeta(rawMeta(members)))
		}
	}
	if o.Progress {
		opts = append(opts, client.WithProgress(func(p spec.ProgressParams) {
			if !r.done.Load() {
				c.progress(tag, p)
			}
		}))
	}
	return opts
}
