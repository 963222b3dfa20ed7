// Package mcp serves the Hookline API to AI agents as a Model Context
// Protocol server, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// The tools are generated from the API's OpenAPI 3.1 document, which the
// package takes as bytes: the gateway passes its embedded copy, the CLI
// fetches the one the gateway serves (FetchDocument). A catalogue names
// the operations served and their tool names; each tool's input schema is
// the operation's path and query parameters beside its request body's
// properties, with every $ref resolved into one self-contained JSON
// Schema, and its output schema is the success response's. There is no
// second, hand-written copy of any schema.
//
// Tools call the public API over HTTP with the caller's API key (Config),
// so credits, rate limits and errors are the API's own; an error answer
// becomes a tool error (isError) with the envelope's message and code in
// its text content and the envelope as structured content, which each
// tool's output schema admits beside the success body: MCP clients such
// as the official TypeScript SDK validate structured content even on
// errors. Tools
// that start long work (start_render, create_clip_project) poll it until
// it ends and report MCP progress notifications on the way.
//
// NewHandler serves Streamable HTTP (the gateway mounts it at /mcp behind
// its API-key authentication); ServeStdio serves standard input and output
// (the CLI's `hookline mcp`).
package mcp
