package main

import (
	"context"

	"hookline.dev/sdk/go/mcp"
)

// serveMCP serves the API's tools to an MCP client over stdin and stdout
// (an agent starts `hookline mcp` as its server), with the tools built from
// the OpenAPI document the server itself serves, so they match its version.
func serveMCP(ctx context.Context, getenv func(string) string, args []string) error {
	if len(args) > 0 {
		return usagef("mcp takes no arguments")
	}
	key, base, err := settings(getenv)
	if err != nil {
		return err
	}
	doc, err := mcp.FetchDocument(ctx, base, nil)
	if err != nil {
		return err
	}
	return mcp.ServeStdio(ctx, doc, mcp.Config{BaseURL: base, APIKey: key})
}
