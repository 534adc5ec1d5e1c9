package mcp

import "github.com/polymcp/polymcp/core/router"

// Handler types for resources, prompts and completions.
type (
	ResourceHandler = router.ResourceHandler
	PromptHandler   = router.PromptHandler
	CompleteHandler = router.CompleteHandler
)

// AddResource registers a concrete resource.
func (s *Server) AddResource(r Resource, h ResourceHandler) error {
	return s.router.AddResource(r, h)
}

// AddResourceTemplate registers an RFC 6570 resource template; h receives
// the matched variables.
func (s *Server) AddResourceTemplate(t ResourceTemplate, h ResourceHandler) error {
	return s.router.AddResourceTemplate(t, h)
}

// AddPrompt registers a prompt.
func (s *Server) AddPrompt(p Prompt, h PromptHandler) error { return s.router.AddPrompt(p, h) }

// SetCompleter registers argument completion for a prompt (ref/prompt) or a
// resource template (ref/resource).
func (s *Server) SetCompleter(ref CompleteRef, h CompleteHandler) error {
	return s.router.SetCompleter(ref, h)
}

// RemoveResources removes resources by uri.
func (s *Server) RemoveResources(uris ...string) int { return s.router.RemoveResources(uris...) }

// RemoveResourceTemplates removes templates by uriTemplate.
func (s *Server) RemoveResourceTemplates(templates ...string) int {
	return s.router.RemoveResourceTemplates(templates...)
}

// RemovePrompts removes prompts by name.
func (s *Server) RemovePrompts(names ...string) int { return s.router.RemovePrompts(names...) }
