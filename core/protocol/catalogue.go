package protocol

import (
	"fmt"
	"sort"

	"github.com/polymcp/polymcp/core/spec"
)

// Kind is a method's message kind.
type Kind uint8

const (
	Request Kind = iota + 1
	Notification
)

// Direction says who sends a method.
type Direction uint8

const (
	ClientToServer Direction = 1 << iota
	ServerToClient
	Both = ClientToServer | ServerToClient
)

// Server capabilities a method can be gated on.
const (
	CapTools              = "tools"
	CapResources          = "resources"
	CapResourcesSubscribe = "resources.subscribe"
	CapPrompts            = "prompts"
	CapLogging            = "logging"
	CapCompletions        = "completions"
)

// Client capabilities a server-to-client request needs.
const (
	ClientCapSampling    = "sampling"
	ClientCapRoots       = "roots"
	ClientCapElicitation = "elicitation"
)

// Method is one entry of a revision's method catalogue.
type Method struct {
	Name string
	Kind Kind
	Dir  Direction
	// ServerCap is the server capability that must be offered ("" = none).
	ServerCap string
	// ClientCap is the client capability a server-to-client method needs.
	ClientCap string
	// Cacheable results carry ttlMs and cacheScope (2026-07-28).
	Cacheable bool
	// InputRequired methods may answer input_required (2026-07-28).
	InputRequired bool
	// NameParam is the params member mirrored by the Mcp-Name header.
	NameParam string
	// Extension is the extension both sides must declare for the method:
	// the server offers it, and the request's client capabilities name it
	// under extensions (2026-07-28).
	Extension string
}

// revision bits, oldest first, matching spec.Revisions.
const (
	r1         = 1 << iota // 2024-11-05
	r2                     // 2025-03-26
	r3                     // 2025-06-18
	r4                     // 2025-11-25
	r5                     // 2026-07-28
	legacyRevs = r1 | r2 | r3 | r4
	allRevs    = legacyRevs | r5
)

type entry struct {
	revs uint8
	Method
}

// methods is the catalogue of every revision as data: which methods exist in
// which revision, their direction and gates. Tasks are served as the
// 2026-07-28 extension (io.modelcontextprotocol/tasks); the 2025-11-25
// experimental tasks are not.
var methods = []entry{
	{legacyRevs, Method{Name: "initialize", Kind: Request, Dir: ClientToServer}},
	{legacyRevs, Method{Name: "notifications/initialized", Kind: Notification, Dir: ClientToServer}},
	{r5, Method{Name: "server/discover", Kind: Request, Dir: ClientToServer, Cacheable: true}},
	{legacyRevs, Method{Name: "ping", Kind: Request, Dir: Both}},
	{allRevs, Method{Name: "tools/list", Kind: Request, Dir: ClientToServer, ServerCap: CapTools, Cacheable: true}},
	{allRevs, Method{Name: "tools/call", Kind: Request, Dir: ClientToServer, ServerCap: CapTools, InputRequired: true, NameParam: "name"}},
	{allRevs, Method{Name: "notifications/tools/list_changed", Kind: Notification, Dir: ServerToClient, ServerCap: CapTools}},
	{allRevs, Method{Name: "resources/list", Kind: Request, Dir: ClientToServer, ServerCap: CapResources, Cacheable: true}},
	{allRevs, Method{Name: "resources/templates/list", Kind: Request, Dir: ClientToServer, ServerCap: CapResources, Cacheable: true}},
	{allRevs, Method{Name: "resources/read", Kind: Request, Dir: ClientToServer, ServerCap: CapResources, Cacheable: true, InputRequired: true, NameParam: "uri"}},
	{legacyRevs, Method{Name: "resources/subscribe", Kind: Request, Dir: ClientToServer, ServerCap: CapResourcesSubscribe}},
	{legacyRevs, Method{Name: "resources/unsubscribe", Kind: Request, Dir: ClientToServer, ServerCap: CapResourcesSubscribe}},
	{allRevs, Method{Name: "notifications/resources/updated", Kind: Notification, Dir: ServerToClient, ServerCap: CapResourcesSubscribe}},
	{allRevs, Method{Name: "notifications/resources/list_changed", Kind: Notification, Dir: ServerToClient, ServerCap: CapResources}},
	{allRevs, Method{Name: "prompts/list", Kind: Request, Dir: ClientToServer, ServerCap: CapPrompts, Cacheable: true}},
	{allRevs, Method{Name: "prompts/get", Kind: Request, Dir: ClientToServer, ServerCap: CapPrompts, InputRequired: true, NameParam: "name"}},
	{allRevs, Method{Name: "notifications/prompts/list_changed", Kind: Notification, Dir: ServerToClient, ServerCap: CapPrompts}},
	{allRevs, Method{Name: "completion/complete", Kind: Request, Dir: ClientToServer, ServerCap: CapCompletions}},
	{legacyRevs, Method{Name: "logging/setLevel", Kind: Request, Dir: ClientToServer, ServerCap: CapLogging}},
	{allRevs, Method{Name: "notifications/message", Kind: Notification, Dir: ServerToClient, ServerCap: CapLogging}},
	{allRevs, Method{Name: "notifications/progress", Kind: Notification, Dir: Both}},
	{allRevs, Method{Name: "notifications/cancelled", Kind: Notification, Dir: Both}},
	{allRevs &^ r5, Method{Name: "sampling/createMessage", Kind: Request, Dir: ServerToClient, ClientCap: ClientCapSampling}},
	{allRevs &^ r5, Method{Name: "roots/list", Kind: Request, Dir: ServerToClient, ClientCap: ClientCapRoots}},
	{legacyRevs, Method{Name: "notifications/roots/list_changed", Kind: Notification, Dir: ClientToServer}},
	{r3 | r4, Method{Name: "elicitation/create", Kind: Request, Dir: ServerToClient, ClientCap: ClientCapElicitation}},
	{r4, Method{Name: "notifications/elicitation/complete", Kind: Notification, Dir: ServerToClient, ClientCap: ClientCapElicitation}},
	{r5, Method{Name: "subscriptions/listen", Kind: Request, Dir: ClientToServer}},
	{r5, Method{Name: "notifications/subscriptions/acknowledged", Kind: Notification, Dir: ServerToClient}},
	{r5, Method{Name: "tasks/get", Kind: Request, Dir: ClientToServer, NameParam: "taskId", Extension: spec.ExtensionTasks}},
	{r5, Method{Name: "tasks/update", Kind: Request, Dir: ClientToServer, NameParam: "taskId", Extension: spec.ExtensionTasks}},
	{r5, Method{Name: "tasks/cancel", Kind: Request, Dir: ClientToServer, NameParam: "taskId", Extension: spec.ExtensionTasks}},
	{r5, Method{Name: "notifications/tasks", Kind: Notification, Dir: ServerToClient, Extension: spec.ExtensionTasks}},
}

// Catalogue is one revision's method table. It is immutable.
type Catalogue struct {
	byName map[string]Method
}

// Lookup returns the method and whether the revision defines it.
func (c *Catalogue) Lookup(name string) (Method, bool) {
	m, ok := c.byName[name]
	return m, ok
}

// Methods returns the revision's methods sorted by name.
func (c *Catalogue) Methods() []Method {
	out := make([]Method, 0, len(c.byName))
	for _, m := range c.byName {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var knownServerCaps = map[string]bool{"": true, CapTools: true, CapResources: true,
	CapResourcesSubscribe: true, CapPrompts: true, CapLogging: true, CapCompletions: true}

var knownClientCaps = map[string]bool{"": true, ClientCapSampling: true, ClientCapRoots: true,
	ClientCapElicitation: true}

var knownExtensions = map[string]bool{"": true, spec.ExtensionTasks: true}

// buildCatalogue selects the entries of one revision bit and checks them.
func buildCatalogue(bit uint8) (*Catalogue, error) {
	c := &Catalogue{byName: make(map[string]Method)}
	for _, e := range methods {
		if e.revs&bit == 0 {
			continue
		}
		m := e.Method
		if _, dup := c.byName[m.Name]; dup {
			return nil, fmt.Errorf("protocol: method %q listed twice", m.Name)
		}
		if !knownServerCaps[m.ServerCap] || !knownClientCaps[m.ClientCap] || !knownExtensions[m.Extension] {
			return nil, fmt.Errorf("protocol: method %q names an unknown capability", m.Name)
		}
		if m.Kind == Notification && (m.Cacheable || m.InputRequired || m.NameParam != "") {
			return nil, fmt.Errorf("protocol: notification %q has request-only flags", m.Name)
		}
		if m.ClientCap != "" && m.Dir != ServerToClient {
			return nil, fmt.Errorf("protocol: method %q gated on a client capability must be server-to-client", m.Name)
		}
		c.byName[m.Name] = m
	}
	return c, nil
}
