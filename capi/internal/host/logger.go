package host

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
)

// logHandler sends a server's diagnostics to on_log as one line of text,
// "message key=value ...", at or above the level set by polymcp_configure.
type logHandler struct {
	s      *Server
	attrs  []slog.Attr
	prefix string // group names, "a.b."
}

func (h *logHandler) Enabled(_ context.Context, level slog.Level) bool {
	return int64(level) >= logLevel.Load()
}

func (h *logHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, a := range h.attrs {
		appendAttr(&b, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.prefix, a)
		return true
	})
	msg := b.String()
	h.s.logMu.RLock()
	defer h.s.logMu.RUnlock()
	if !h.s.logDone {
		h.s.cb.OnLog(int(r.Level), []byte(msg))
	}
	return nil
}

func appendAttr(b *strings.Builder, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		for _, g := range v.Group() {
			appendAttr(b, prefix+a.Key+".", g)
		}
		return
	}
	b.WriteByte(' ')
	b.WriteString(prefix + a.Key)
	b.WriteByte('=')
	s := v.String()
	if strings.ContainsAny(s, " \t\n\"=") || s == "" {
		s = strconv.Quote(s)
	}
	b.WriteString(s)
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), qualify(h.prefix, attrs)...)
	return &c
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}

func qualify(prefix string, attrs []slog.Attr) []slog.Attr {
	if prefix == "" {
		return attrs
	}
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = slog.Attr{Key: prefix + a.Key, Value: a.Value}
	}
	return out
}
