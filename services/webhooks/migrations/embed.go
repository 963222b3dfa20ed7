// Package migrations holds the webhooks service's schema, applied at
// start-up after the messaging outbox and inbox.
package migrations

import "embed"

// FS is the set of NNNN_name.sql files.
//
//go:embed *.sql
var FS embed.FS
