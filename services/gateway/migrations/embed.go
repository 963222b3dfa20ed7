// Package migrations holds the gateway's schema, applied at start-up after
// the messaging outbox (pkg/platform/messaging.Migrations).
package migrations

import "embed"

// FS is the set of NNNN_name.sql files.
//
//go:embed *.sql
var FS embed.FS
