package router

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

func TestAddResourceRejects(t *testing.T) {
	tests := []struct {
		name string
		res  spec.Resource
		nilH bool
		want string
	}{
		{"empty URI", spec.Resource{Name: "n"}, false, "empty"},
		{"no scheme", spec.Resource{URI: "docs/readme", Name: "n"}, false, "no scheme"},
		{"control character", spec.Resource{URI: "file:///a\nb", Name: "n"}, false, "control character"},
		{"NUL", spec.Resource{URI: "file:///a\x00", Name: "n"}, false, "control character"},
		{"DEL", spec.Resource{URI: "file:///a\x7f", Name: "n"}, false, "control character"},
		{"space", spec.Resource{URI: "file:///a b", Name: "n"}, false, "space"},
		{"bad escape", spec.Resource{URI: "file:///a%zz", Name: "n"}, false, "does not parse"},
		{"no name", spec.Resource{URI: "file:///a"}, false, "name is required"},
		{"nil handler", spec.Resource{URI: "file:///a", Name: "n"}, true, "nil handler"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ch := newRecorded(Options{})
			h := okResource("x")
			if tt.nilH {
				h = nil
			}
			err := r.AddResource(tt.res, h)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, ch.take())
		})
	}
}

func TestAddResourceTemplateRejects(t *testing.T) {
	tests := []struct {
		name string
		tmpl spec.ResourceTemplate
		want string
	}{
		{"unclosed", spec.ResourceTemplate{URITemplate: "file:///{path", Name: "n"}, "file:///{path"},
		{"repeated variable", spec.ResourceTemplate{URITemplate: "db://{x}/{x}", Name: "n"}, "db://"},
		{"no name", spec.ResourceTemplate{URITemplate: "db://{x}"}, "name is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{})
			err := r.AddResourceTemplate(tt.tmpl, okResource("x"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	r := New(Options{})
	assert.ErrorContains(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "db://{x}", Name: "n"}, nil), "nil handler")
}

// readCall records how a resource handler was called.
type readCall struct {
	who  string
	uri  string
	vars map[string]string
}

func recording(who string, calls *[]readCall) ResourceHandler {
	return func(_ context.Context, _ *Request, uri string, vars map[string]string) (*spec.ReadResourceResult, error) {
		*calls = append(*calls, readCall{who, uri, vars})
		return &spec.ReadResourceResult{Contents: []spec.ResourceContents{spec.TextResource(uri, "", who)}}, nil
	}
}

func TestReadResourceMatching(t *testing.T) {
	r := New(Options{})
	var calls []readCall
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "file:///{+path}", Name: "files"}, recording("files", &calls)))
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "file:///docs/{name}", Name: "docs"}, recording("docs", &calls)))
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "users://{id}/posts{?page,sort}", Name: "posts"}, recording("posts", &calls)))
	require.NoError(t, r.AddResource(spec.Resource{URI: "file:///docs/readme", Name: "readme"}, recording("readme", &calls)))

	tests := []struct {
		uri  string
		who  string
		vars map[string]string
	}{
		{"file:///docs/readme", "readme", nil},                                   // exact URIs before any template
		{"file:///docs/intro", "files", map[string]string{"path": "docs/intro"}}, // first template wins
		{"file:///a%20b/c", "files", map[string]string{"path": "a b/c"}},         // variables are decoded
		{"users://42/posts?page=2", "posts", map[string]string{"id": "42", "page": "2"}},
		{"users://42/posts?sort=new&page=3", "posts", map[string]string{"id": "42", "page": "3", "sort": "new"}},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			calls = nil
			res, err := r.ReadResource(context.Background(), &Request{}, tt.uri)
			require.NoError(t, err)
			require.Len(t, calls, 1)
			assert.Equal(t, tt.who, calls[0].who)
			assert.Equal(t, tt.uri, calls[0].uri)
			assert.Equal(t, tt.vars, calls[0].vars)
			assert.Equal(t, tt.who, res.Contents[0].Text)
		})
	}

	// Removing the catch-all lets the next template in order serve.
	require.Equal(t, 1, r.RemoveResourceTemplates("file:///{+path}"))
	calls = nil
	_, err := r.ReadResource(context.Background(), nil, "file:///docs/intro")
	require.NoError(t, err)
	assert.Equal(t, "docs", calls[0].who)
	assert.Equal(t, map[string]string{"name": "intro"}, calls[0].vars)
}

func TestReadResourceMisses(t *testing.T) {
	r := New(Options{})
	require.NoError(t, r.AddResource(spec.Resource{URI: "file:///a", Name: "a"}, okResource("a")))
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "db://t/{id}", Name: "t"}, okResource("t")))
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "list://{/items*}", Name: "x"}, okResource("x")))

	tests := []struct {
		name    string
		uri     string
		invalid bool // -32602 instead of not found
	}{
		{"unknown", "file:///b", false},
		{"template literal differs", "db://u/1", false},
		{"exploded templates never match", "list:///a/b", false},
		{"bad percent-encoding in a variable", "db://t/%zz", true},
		{"no scheme", "a", true},
		{"control character", "file:///a\r\n", true},
		{"empty", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.ReadResource(context.Background(), nil, tt.uri)
			assert.Nil(t, res)
			if tt.invalid {
				var rpcErr *jsonrpc.Error
				require.ErrorAs(t, err, &rpcErr)
				assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcErr.Code)
				return
			}
			var nf *NotFoundError
			require.ErrorAs(t, err, &nf)
			assert.Equal(t, tt.uri, nf.URI)
			assert.Equal(t, "resource not found: "+tt.uri, err.Error())
		})
	}
}

func TestReadResourceResults(t *testing.T) {
	boom := errors.New("backend down")
	rpcErr := jsonrpc.Errorf(jsonrpc.KindExecution, -32050, "custom")
	tests := []struct {
		name    string
		res     *spec.ReadResourceResult
		err     error
		wantErr error
	}{
		{"nil result", nil, nil, nil},
		{"nil contents", &spec.ReadResourceResult{}, nil, nil},
		{"empty contents", &spec.ReadResourceResult{Contents: []spec.ResourceContents{}}, nil, nil},
		{"error", nil, boom, boom},
		{"jsonrpc error", nil, rpcErr, rpcErr},
		{"not found from handler", nil, &NotFoundError{URI: "db://t/9"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{})
			require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "db://t/{id}", Name: "t"},
				func(context.Context, *Request, string, map[string]string) (*spec.ReadResourceResult, error) {
					return tt.res, tt.err
				}))
			res, err := r.ReadResource(context.Background(), nil, "db://t/9")
			var nf *NotFoundError
			switch {
			case tt.wantErr != nil:
				assert.Same(t, tt.wantErr, err)
				assert.Nil(t, res)
			case errors.As(tt.err, &nf):
				assert.ErrorAs(t, err, &nf)
			default:
				require.NoError(t, err)
				require.NotNil(t, res.Contents, "contents is [] rather than null")
				assert.Empty(t, res.Contents)
			}
		})
	}
}

func TestResourceListsAndChanges(t *testing.T) {
	r, ch := newRecorded(Options{})
	require.NoError(t, r.AddResource(spec.Resource{URI: "file:///a", Name: "a"}, okResource("a")))
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "db://{id}", Name: "t"}, okResource("t")))
	require.NoError(t, r.AddResource(spec.Resource{URI: "file:///b", Name: "b"}, okResource("b")))
	require.NoError(t, r.AddResource(spec.Resource{URI: "file:///a", Name: "a2"}, okResource("a2")))
	assert.Equal(t, []List{ListResources, ListResources, ListResources, ListResources}, ch.take(),
		"templates report the resources list")

	res, err := r.ListResources(nil)
	require.Nil(t, err)
	require.Len(t, res.Resources, 2)
	assert.Equal(t, "a2", res.Resources[0].Name, "replaced in place")
	assert.Equal(t, "b", res.Resources[1].Name)
	tpl, err := r.ListResourceTemplates(nil)
	require.Nil(t, err)
	require.Len(t, tpl.ResourceTemplates, 1)
	assert.Equal(t, "db://{id}", tpl.ResourceTemplates[0].URITemplate)

	got, rerr := r.ReadResource(context.Background(), nil, "file:///a")
	require.NoError(t, rerr)
	assert.Equal(t, "a2", got.Contents[0].Text)

	assert.Equal(t, 0, r.RemoveResources("file:///zzz"))
	assert.Equal(t, 0, r.RemoveResourceTemplates("db://{other}"))
	assert.Empty(t, ch.take())
	assert.Equal(t, 2, r.RemoveResources("file:///a", "file:///b"))
	assert.Equal(t, 1, r.RemoveResourceTemplates("db://{id}"))
	assert.Equal(t, []List{ListResources, ListResources}, ch.take())

	_, rerr = r.ReadResource(context.Background(), nil, "file:///a")
	var nf *NotFoundError
	assert.ErrorAs(t, rerr, &nf)
	tools, resources, prompts, _ := r.Capabilities()
	assert.True(t, resources)
	assert.False(t, tools || prompts)
}
