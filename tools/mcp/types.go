package mcp

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// The MCP types aci reads, with the fields it uses
// (https://modelcontextprotocol.io/specification/2025-11-25/schema).

// Tool is one tool a server offers.
type Tool struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	InputSchema any              `json:"inputSchema"`
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
}

// ToolAnnotations are the server's hints about a tool.
type ToolAnnotations struct {
	ReadOnlyHint bool `json:"readOnlyHint,omitempty"`
}

// Resource is a document a server offers to read.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// ResourceTemplate is a family of resources, by a URI with {parameters}.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Content is one block of a tool's result, of any type: "text", "image",
// "audio" (base64 Data), "resource_link" (URI, Name, Description) or
// "resource" (an embedded Resource).
type Content struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	MIMEType    string            `json:"mimeType,omitempty"`
	Data        string            `json:"data,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Description string            `json:"description,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
}

// ResourceContents is a resource as read: Text, or a base64 Blob.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// callToolResult is the answer to tools/call.
type callToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

type readResourceResult struct {
	Contents []*ResourceContents `json:"contents"`
}

// listResult is a page of tools/list, resources/list or
// resources/templates/list.
type listResult struct {
	Tools             []*Tool             `json:"tools"`
	Resources         []*Resource         `json:"resources"`
	ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string              `json:"nextCursor,omitempty"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeParams struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    struct{}       `json:"capabilities"` // none: aci answers no server requests but ping
	ClientInfo      implementation `json:"clientInfo"`
}

type initializeResult struct {
	ProtocolVersion string `json:"protocolVersion"`
	Capabilities    struct {
		Tools     *struct{} `json:"tools,omitempty"`
		Resources *struct{} `json:"resources,omitempty"`
	} `json:"capabilities"`
	ServerInfo   implementation `json:"serverInfo"`
	Instructions string         `json:"instructions,omitempty"`
}

// decodedLen is the size of base64 data once decoded.
func decodedLen(b64 string) int {
	b64 = strings.TrimRight(b64, "=")
	return base64.RawStdEncoding.DecodedLen(len(b64))
}
