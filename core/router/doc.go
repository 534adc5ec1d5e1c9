// Package router holds a server's catalogues — tools, resources, resource
// templates, prompts and their completers — and answers the MCP methods
// that read them: tools/list, tools/call, resources/list,
// resources/templates/list, resources/read, prompts/list, prompts/get and
// completion/complete.
//
// The package is pure: it does no I/O and starts no goroutines. Handlers run
// on whatever goroutine calls the Router (normally core/executor's), and
// the dispatcher turns the values returned here into wire messages for the
// revision a request speaks.
//
// # Concurrency
//
// A Router is safe for concurrent use. Each catalogue is published as an
// immutable snapshot behind an atomic pointer, so a read (a list page, a
// tools/call lookup) is one atomic load and one map lookup with no lock.
// A change edits the writers' copy under a mutex and clears the published
// snapshot; the next read rebuilds it once. Startup registrations of many
// items therefore cost O(1) each, and a change while serving costs one copy
// of the changed catalogue.
//
// # Order and pagination
//
// Lists come out in registration order; replacing an item under the same
// key (tool name, resource URI, template string, prompt name) keeps its
// place. Every change bumps that catalogue's version. Cursors are issued by
// core/router/cursor and bind method, version and offset, so a cursor taken
// before a change fails with -32602 ("cursor expired; list again") instead
// of silently skipping or repeating items. Versions count changes from the
// Router's creation: replicas that share Options.CursorKey and register the
// same items in the same order accept each other's cursors.
//
// # Errors
//
// Protocol errors are *jsonrpc.Error values (-32602 for unknown names, bad
// cursors, bad arguments to prompts and completions). A tool's own failures,
// including arguments that fail its inputSchema, are results with isError
// set, as the specification asks, so the model can correct itself.
// ReadResource reports an unknown URI as *NotFoundError, which the dialect
// maps to -32002 (legacy revisions) or -32602 (2026-07-28).
//
// Definitions are kept by value: a Tool's schemas are copied at
// registration, but the other maps and slices inside definitions (Meta,
// Icons, Arguments) are shared with the caller. List results and Tool hand
// out fresh slices of definitions whose members are shared with the Router
// in the same way. Neither side may modify those members afterwards.
package router
