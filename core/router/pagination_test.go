package router

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// listAll pages through tools/list, returning the names and the cursors.
func listAll(t *testing.T, r *Router) ([]string, []string) {
	t.Helper()
	var names, cursors []string
	var cur *string
	for range 100 {
		res, err := r.ListTools(cur)
		require.Nil(t, err)
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if res.NextCursor == "" {
			return names, cursors
		}
		cursors = append(cursors, res.NextCursor)
		cur = &res.NextCursor
	}
	t.Fatal("pagination does not end")
	return nil, nil
}

func TestPagination250(t *testing.T) {
	r := New(Options{PageSize: 100})
	addTools(t, r, 250)

	var sizes []int
	var cur *string
	for {
		res, err := r.ListTools(cur)
		require.Nil(t, err)
		sizes = append(sizes, len(res.Tools))
		if res.NextCursor == "" {
			break
		}
		cur = &res.NextCursor
	}
	assert.Equal(t, []int{100, 100, 50}, sizes)

	names, cursors := listAll(t, r)
	require.Len(t, names, 250)
	for i, n := range names {
		require.Equal(t, toolName(i), n, "registration order")
	}
	require.Len(t, cursors, 2)

	// The catalogue changes: old cursors expire rather than skip or repeat.
	require.NoError(t, r.AddTool(spec.Tool{Name: "late"}, okTool("x")))
	_, err := r.ListTools(&cursors[0])
	requireRPC(t, err, jsonrpc.CodeInvalidParams, "cursor expired; list again")
	names, _ = listAll(t, r)
	assert.Len(t, names, 251)
	assert.Equal(t, "late", names[250])
}

func TestPaginationCursorErrors(t *testing.T) {
	r := New(Options{PageSize: 2})
	addTools(t, r, 5)
	first, _ := r.ListTools(nil)
	require.NotEmpty(t, first.NextCursor)

	other := New(Options{PageSize: 2})
	addTools(t, other, 5)
	foreign, _ := other.ListTools(nil)

	tests := []struct {
		name   string
		cursor string
		want   string
	}{
		{"garbage", "not-a-cursor!", "invalid cursor"},
		{"truncated", first.NextCursor[:len(first.NextCursor)-2], "invalid cursor"},
		{"another router's key", foreign.NextCursor, "invalid cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.ListTools(&tt.cursor)
			requireRPC(t, err, jsonrpc.CodeInvalidParams, tt.want)
			assert.NotContains(t, err.Message, "expired")
		})
	}
	t.Run("another method", func(t *testing.T) {
		require.NoError(t, r.AddPrompt(spec.Prompt{Name: "p"}, okPrompt))
		_, err := r.ListPrompts(&first.NextCursor)
		requireRPC(t, err, jsonrpc.CodeInvalidParams, "invalid cursor")
	})
	t.Run("empty is the first page", func(t *testing.T) {
		empty := ""
		res, err := r.ListTools(&empty)
		require.Nil(t, err)
		assert.Equal(t, toolName(0), res.Tools[0].Name)
	})
}

func TestPaginationSharedKey(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	a, b := New(Options{PageSize: 2, CursorKey: key}), New(Options{PageSize: 2, CursorKey: key})
	addTools(t, a, 5)
	addTools(t, b, 5)
	page1, _ := a.ListTools(nil)
	page2, err := b.ListTools(&page1.NextCursor)
	require.Nil(t, err, "replicas with one key and one catalogue share cursors")
	assert.Equal(t, toolName(2), page2.Tools[0].Name)
}

func TestPaginationDefaults(t *testing.T) {
	r := New(Options{})
	addTools(t, r, DefaultPageSize+1)
	res, _ := r.ListTools(nil)
	assert.Len(t, res.Tools, DefaultPageSize)
	assert.NotEmpty(t, res.NextCursor)

	exact := New(Options{PageSize: 3})
	addTools(t, exact, 3)
	res, _ = exact.ListTools(nil)
	assert.Len(t, res.Tools, 3)
	assert.Empty(t, res.NextCursor, "no cursor when nothing remains")

	empty := New(Options{})
	res, err := empty.ListTools(nil)
	require.Nil(t, err)
	assert.NotNil(t, res.Tools)
	assert.Empty(t, res.Tools)
}

// Every list pages the same way and expires on its own catalogue's changes.
func TestPaginationEveryList(t *testing.T) {
	r := New(Options{PageSize: 1})
	for _, s := range []string{"a", "b"} {
		require.NoError(t, r.AddResource(spec.Resource{URI: "file:///" + s, Name: s}, okResource(s)))
		require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "db://" + s + "/{id}", Name: s}, okResource(s)))
		require.NoError(t, r.AddPrompt(spec.Prompt{Name: s}, okPrompt))
	}
	res, _ := r.ListResources(nil)
	tpl, _ := r.ListResourceTemplates(nil)
	pr, _ := r.ListPrompts(nil)
	require.Equal(t, "a", res.Resources[0].Name)
	require.Equal(t, "a", tpl.ResourceTemplates[0].Name)
	require.Equal(t, "a", pr.Prompts[0].Name)

	res2, err := r.ListResources(&res.NextCursor)
	require.Nil(t, err)
	assert.Equal(t, "b", res2.Resources[0].Name)
	assert.Empty(t, res2.NextCursor)
	tpl2, err := r.ListResourceTemplates(&tpl.NextCursor)
	require.Nil(t, err)
	assert.Equal(t, "b", tpl2.ResourceTemplates[0].Name)
	pr2, err := r.ListPrompts(&pr.NextCursor)
	require.Nil(t, err)
	assert.Equal(t, "b", pr2.Prompts[0].Name)

	// A cursor names its list: a resources/list cursor is no template cursor.
	_, err = r.ListResourceTemplates(&res.NextCursor)
	requireRPC(t, err, jsonrpc.CodeInvalidParams, "invalid cursor")

	// Changing templates expires template cursors only.
	r.RemoveResourceTemplates("db://b/{id}")
	_, err = r.ListResourceTemplates(&tpl.NextCursor)
	requireRPC(t, err, jsonrpc.CodeInvalidParams, "expired")
	_, err = r.ListResources(&res.NextCursor)
	assert.Nil(t, err)
	_, err = r.ListPrompts(&pr.NextCursor)
	assert.Nil(t, err)
}

func TestOrderStability(t *testing.T) {
	r := New(Options{PageSize: 4})
	addTools(t, r, 10)
	want, _ := listAll(t, r)

	// Lists are deterministic: the same catalogue always lists the same way.
	for range 5 {
		got, _ := listAll(t, r)
		require.Equal(t, want, got)
	}
	// Replacing keeps places; removing keeps the others' order; adding appends.
	require.NoError(t, r.AddTool(spec.Tool{Name: toolName(4), Title: "new"}, okTool("x")))
	assert.Equal(t, 2, r.RemoveTools(toolName(1), toolName(7)))
	require.NoError(t, r.AddTool(spec.Tool{Name: toolName(1)}, okTool("x")))
	got, _ := listAll(t, r)
	assert.Equal(t, []string{toolName(0), toolName(2), toolName(3), toolName(4), toolName(5),
		toolName(6), toolName(8), toolName(9), toolName(1)}, got)
	tool, _ := r.Tool(toolName(4))
	assert.Equal(t, "new", tool.Title)
	res, err := r.CallTool(context.Background(), nil, &spec.CallToolParams{Name: toolName(9)})
	require.Nil(t, err)
	assert.Equal(t, toolName(9), textOf(t, res), "the index follows the compaction")
}
