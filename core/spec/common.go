package spec

// Implementation names a client or server (initialize, serverInfo _meta).
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is a displayable image (2025-11-25+); src is an https: or data: URI.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Annotations are hints on content and resources.
type Annotations struct {
	Audience     []Role   `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// Role is "user" or "assistant".
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// ResultBase carries the members every result may have. The revision's
// dialect fills ResultType and the cache hints; handlers may set Meta.
type ResultBase struct {
	ResultType string `json:"resultType,omitempty"`
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
	Meta       Meta   `json:"_meta,omitempty"`
}

// Base returns the common members so the dialect can shape any result.
func (b *ResultBase) Base() *ResultBase { return b }

// Result is any MCP result value.
type Result interface{ Base() *ResultBase }

// Result types of 2026-07-28.
const (
	ResultComplete      = "complete"
	ResultInputRequired = "input_required"
)

// Cache scopes of 2026-07-28.
const (
	CachePublic  = "public"
	CachePrivate = "private"
)

// EmptyResult answers ping, logging/setLevel, subscribe and unsubscribe.
type EmptyResult struct {
	ResultBase
}

// LoggingLevel is an RFC 5424 severity name.
type LoggingLevel string

// LoggingLevels in increasing severity.
var LoggingLevels = []LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Severity returns the level's rank (0 = debug) and whether it is known.
func (l LoggingLevel) Severity() (int, bool) {
	for i, v := range LoggingLevels {
		if v == l {
			return i, true
		}
	}
	return -1, false
}
