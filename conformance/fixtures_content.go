package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// templateURI is the fixture resource template; {id} is echoed back.
const templateURI = "test://template/{id}/data"

func addResources(s *mcp.Server) {
	s.AddResource(&mcp.Resource{Name: "static-text", Description: "A static text resource",
		MIMEType: "text/plain", URI: "test://static-text"}, readText("This is the content of the static text resource."))
	s.AddResource(&mcp.Resource{Name: "static-binary", Description: "A static binary resource (PNG image)",
		MIMEType: "image/png", URI: "test://static-binary"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "image/png", Blob: pngData}}}, nil
		})
	s.AddResource(&mcp.Resource{Name: "watched-resource", Description: "A resource whose subscribers are notified of updates periodically",
		MIMEType: "text/plain", URI: WatchedResourceURI}, readText("Watched resource content"))
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "template", Description: "A resource template with an {id} parameter",
		MIMEType: "application/json", URITemplate: templateURI}, readTemplate)
}

// readText returns a handler serving a constant text.
func readText(body string) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "text/plain", Text: body}}}, nil
	}
}

// readTemplate serves test://template/{id}/data, echoing {id}.
func readTemplate(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, "test://template/")
	if ok {
		id, ok = strings.CutSuffix(id, "/data")
	}
	if !ok || id == "" || strings.Contains(id, "/") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json",
		Text: fmt.Sprintf(`{"id":%q,"templateTest":true,"data":"Data for ID: %s"}`, id, id)}}}, nil
}

func addPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return userPrompt("A simple test prompt", &mcp.TextContent{Text: "This is a simple prompt for testing."}), nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with two required arguments",
		Arguments: []*mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return userPrompt("A prompt with arguments", &mcp.TextContent{
				Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}), nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource",
		Description: "A prompt embedding the resource named by resourceUri",
		Arguments:   []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return userPrompt("A prompt with an embedded resource",
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: req.Params.Arguments["resourceUri"],
					MIMEType: "text/plain", Text: "Embedded resource content for testing."}},
				&mcp.TextContent{Text: "Please process the embedded resource above."}), nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt with image content"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return userPrompt("A prompt with an image",
				&mcp.ImageContent{Data: pngData, MIMEType: "image/png"},
				&mcp.TextContent{Text: "Please analyze the image above."}), nil
		})
}

// userPrompt is a prompt result with one user message per content item.
func userPrompt(desc string, items ...mcp.Content) *mcp.GetPromptResult {
	r := &mcp.GetPromptResult{Description: desc}
	for _, c := range items {
		r.Messages = append(r.Messages, &mcp.PromptMessage{Role: "user", Content: c})
	}
	return r
}
