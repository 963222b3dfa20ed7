// Package hookline is the Go client of the Hookline API: typed requests
// and responses for every operation of the OpenAPI document, an
// Idempotency-Key on every POST, retries that honour Retry-After, page
// iterators, waiting for long work, and the webhook-signature check.
//
//	c, err := hookline.New(hookline.WithBaseURL(os.Getenv("HOOKLINE_BASE_URL")),
//		hookline.WithAPIKey(os.Getenv("HOOKLINE_API_KEY")))
//	thumb, err := c.CreateThumbnail(ctx, &hookline.ThumbnailCreate{Prompt: "a cat astronaut"})
//
// Each method is named after its operationId in the OpenAPI document
// (createThumbnail → CreateThumbnail); lists have an All… twin that walks
// every page as an iter.Seq2. A non-2xx answer is an *APIError carrying
// the envelope's code and message, the status and the request id.
//
// The types are written by hand, not generated. The document is OpenAPI
// 3.1 (JSON Schema 2020-12: `type: [string, "null"]`, `const`,
// `unevaluatedProperties`, `if`/`else`, oneOf request bodies), and the Go
// generators do not read it correctly: oapi-codegen supports 3.0 only
// (oapi-codegen/oapi-codegen#373 is open) and ogen fails on type arrays
// (ogen-go/ogen#1617 is open). openapi_test.go keeps the hand-written
// client honest instead: it reads the document and fails when an
// operation has no method, or when a property of a request or response
// schema (or a query parameter) has no field in the Go type, or a field
// names no property.
//
// The package depends on the standard library only.
package hookline
